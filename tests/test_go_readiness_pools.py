"""KLB303 (Go): a readiness handler that answers a constant while the code holds a pgx
pool (pgxpool, made in a package of its own that main imports) is reported, at info; pgx's
pools are no KLB203 matter (a connection lives an hour at most by default). A handler that
pings the pool is fine."""

from __future__ import annotations

from pathlib import Path

from .helpers import lint_files

GO_MOD = "module example.com/ledger\n\ngo 1.22\n"

STORE = """\
package store

import (
	"context"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"
)

func Open(ctx context.Context) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(os.Getenv("DATABASE_URL"))
	if err != nil {
		return nil, err
	}
	return pgxpool.NewWithConfig(ctx, cfg)
}
"""

MAIN = """\
package main

import (
	"context"
	"log"

	"example.com/ledger/internal/store"
	"github.com/gin-gonic/gin"
)

func main() {
	pool, err := store.Open(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	r := gin.New()
	r.GET("/readyz", HANDLER)
	log.Fatal(r.Run(":8080"))
}
"""

CONSTANT = 'func(c *gin.Context) {\n\t\tc.JSON(200, gin.H{"status": "ok"})\n\t}'
PINGS = (
    "func(c *gin.Context) {\n\t\tif err := pool.Ping(c); err != nil {\n"
    '\t\t\tc.String(503, "down")\n\t\t\treturn\n\t\t}\n\t\tc.String(200, "ok")\n\t}'
)

DOCKERFILE = """\
FROM golang:1.22 AS build
WORKDIR /src
COPY . .
RUN go build -o /out/ledger .

FROM gcr.io/distroless/static
COPY --from=build /out/ledger /ledger
ENTRYPOINT ["/ledger"]
"""

MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ledger
spec:
  replicas: 2
  selector:
    matchLabels:
      app: ledger
  template:
    metadata:
      labels:
        app: ledger
    spec:
      containers:
        - name: ledger
          image: registry.example.com/acme/ledger:0.9.1
          ports:
            - containerPort: 8080
          readinessProbe:
            httpGet:
              path: /readyz
              port: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: ledger
spec:
  selector:
    app: ledger
  ports:
    - name: http
      port: 80
      targetPort: 8080
"""


def _lint(tmp_path: Path, handler: str) -> list[tuple[str, str, str]]:
    found = lint_files(
        tmp_path,
        {
            "ledger/go.mod": GO_MOD,
            "ledger/main.go": MAIN.replace("HANDLER", handler),
            "ledger/internal/store/store.go": STORE,
            "ledger/Dockerfile": DOCKERFILE,
            "deploy/ledger.yaml": MANIFEST,
        },
        ["KLB303", "KLB203"],
    )
    return [(f.rule, f.severity.name.lower(), f.text) for f in found.findings]


def test_a_constant_readiness_while_the_code_holds_a_pgx_pool(tmp_path: Path) -> None:
    [(rule, severity, text)] = _lint(tmp_path, CONSTANT)
    assert (rule, severity) == ("KLB303", "info")
    assert "a database pool (store.go:15)" in text


def test_a_readiness_that_pings_the_pool(tmp_path: Path) -> None:
    assert _lint(tmp_path, PINGS) == []
