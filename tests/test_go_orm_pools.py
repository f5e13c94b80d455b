"""KLB203 (Go): GORM's `gorm.Open(<driver>.Open(dsn))` opens a database/sql pool, whose
lifetime is set on the `*sql.DB` that `db.DB()` gives; sqlx's pools are also set through
their `.DB` field. A pool whose lifetime is never set is reported (info); one set through
`db.DB()` or `.DB` is not; a GORM handle over a pool opened before is that pool, not
another."""

from __future__ import annotations

from pathlib import Path

from .helpers import lint_files

GO_MOD = "module example.com/payments\n\ngo 1.22\n"

GORM_MAIN = """\
package main

import (
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"gorm.io/driver/mysql"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
)

func openStore() *gorm.DB {
	dsn := fmt.Sprintf("%s:%s@tcp(%s:3306)/payments?parseTime=true",
		os.Getenv("DB_USER"), os.Getenv("DB_PASSWORD"), os.Getenv("DB_HOST"))
	db, err := gorm.Open(DIALECTOR, &gorm.Config{})
	if err != nil {
		log.Fatal(err)
	}
	LIFETIME
	return db
}

func main() {
	store := openStore()
	_ = store
	_ = time.Minute
	_ = postgres.Open
	_ = mysql.Open
	log.Fatal(http.ListenAndServe(":8080", nil))
}
"""

SET_LIFETIME = """sqlDB, err := db.DB()
	if err != nil {
		log.Fatal(err)
	}
	sqlDB.SetConnMaxLifetime(30 * time.Minute)"""


def _lint(tmp_path: Path, main: str) -> list[tuple[str, int, str]]:
    found = lint_files(tmp_path, {"go.mod": GO_MOD, "main.go": main}, ["KLB203"])
    return [(f.rule, f.line, f.text) for f in found.findings]


def _gorm(dialector: str, lifetime: str = "") -> str:
    return GORM_MAIN.replace("DIALECTOR", dialector).replace("LIFETIME", lifetime)


def test_a_gorm_mysql_pool_with_no_lifetime(tmp_path: Path) -> None:
    [(rule, line, message)] = _lint(tmp_path, _gorm("mysql.Open(dsn)"))
    assert (rule, line) == ("KLB203", 18)
    assert "gorm.Open pool: no SetConnMaxLifetime" in message
    assert "db.DB()" in message


def test_a_gorm_postgres_pool_with_no_lifetime(tmp_path: Path) -> None:
    found = _lint(tmp_path, _gorm('postgres.Open(os.Getenv("DATABASE_URL"))'))
    assert [(rule, line) for rule, line, _ in found] == [("KLB203", 18)]


def test_a_lifetime_set_on_the_pool_under_the_gorm_handle(tmp_path: Path) -> None:
    assert _lint(tmp_path, _gorm("mysql.Open(dsn)", SET_LIFETIME)) == []


def test_an_sqlite_file_is_no_server(tmp_path: Path) -> None:
    main = _gorm('sqlite.Open("app.db")').replace(
        '"gorm.io/driver/mysql"', '"gorm.io/driver/mysql"\n\t"gorm.io/driver/sqlite"'
    )
    assert _lint(tmp_path, main) == []


def test_a_gorm_handle_over_a_pool_opened_before_is_that_pool(tmp_path: Path) -> None:
    main = (
        GORM_MAIN.replace(
            "db, err := gorm.Open(DIALECTOR, &gorm.Config{})",
            'pool, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))\n'
            "\tpool.SetConnMaxLifetime(time.Hour)\n"
            "\tdb, err := gorm.Open(postgres.New(postgres.Config{Conn: pool}), &gorm.Config{})",
        )
        .replace('"fmt"', '"database/sql"\n\t"fmt"')
        .replace("LIFETIME", "")
    )
    assert _lint(tmp_path, main) == []


SQLX_MAIN = """\
package main

import (
	"log"
	"net/http"
	"os"
	"time"

	"github.com/jmoiron/sqlx"
)

func main() {
	db := sqlx.MustConnect("postgres", os.Getenv("DATABASE_URL"))
	LIFETIME
	_ = time.Minute
	log.Fatal(http.ListenAndServe(":8080", nil))
}
"""


def test_an_sqlx_pool_with_no_lifetime(tmp_path: Path) -> None:
    found = _lint(tmp_path, SQLX_MAIN.replace("LIFETIME", "_ = db"))
    assert [(rule, line) for rule, line, _ in found] == [("KLB203", 13)]


def test_an_sqlx_pool_whose_lifetime_is_set_through_its_db_field(tmp_path: Path) -> None:
    main = SQLX_MAIN.replace("LIFETIME", "db.DB.SetConnMaxLifetime(30 * time.Minute)")
    assert _lint(tmp_path, main) == []


MODELS_NO_FINAL_NEWLINE = """\
package store

import (
	"os"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
)

func Open() (*gorm.DB, error) {
	return gorm.Open(postgres.Open(os.Getenv("DATABASE_URL")), &gorm.Config{})
}

type Invoice struct {
	ID    string `gorm:"primaryKey"`
	Total int64
}"""


def test_a_go_file_whose_last_line_has_no_newline_is_valid_go(tmp_path: Path) -> None:
    found = lint_files(
        tmp_path, {"go.mod": GO_MOD, "store/store.go": MODELS_NO_FINAL_NEWLINE}, ["KLB004"]
    )
    assert found.findings == []


# GORM v1 (github.com/jinzhu/gorm): `gorm.Open(dialect, dsn)` opens the database/sql pool
# itself, and `db.DB()` gives its *sql.DB (one result, so often chained).
GORM_V1_STORE = """\
package inventory

import (
	"database/sql"
	"fmt"
	"time"

	"github.com/jinzhu/gorm"
	_ "github.com/jinzhu/gorm/dialects/DIALECT"
)

type StockStore struct {
	db *gorm.DB
}

type StoreConfig struct {
	Host string
	Port int
	Name string
}

func (c *StoreConfig) Connect() (*StockStore, func() error, error) {
	dsn := fmt.Sprintf("stock:secret@tcp(%s:%d)/%s?parseTime=True", c.Host, c.Port, c.Name)
	db, err := gorm.Open(OPENED)
	if err != nil {
		return nil, nil, err
	}
	LIFETIME
	return &StockStore{db: db}, db.Close, nil
}

var _ = time.Minute
var _ *sql.DB
"""


def _gorm_v1(opened: str = '"mysql", dsn', lifetime: str = "", dialect: str = "mysql") -> str:
    return (
        GORM_V1_STORE.replace("OPENED", opened)
        .replace("LIFETIME", lifetime)
        .replace("DIALECT", dialect)
    )


def _lint_store(tmp_path: Path, store: str) -> list[tuple[str, int, str]]:
    files = {"go.mod": GO_MOD, "inventory/store.go": store}
    found = lint_files(tmp_path, files, ["KLB203"])
    return [(f.rule, f.line, f.text) for f in found.findings]


def test_a_gorm_v1_pool_opened_by_dialect_name_with_no_lifetime(tmp_path: Path) -> None:
    [(rule, line, message)] = _lint_store(tmp_path, _gorm_v1())
    assert (rule, line) == ("KLB203", 24)
    assert "gorm.Open pool: no SetConnMaxLifetime" in message
    assert "db.DB()" in message  # where GORM keeps the *sql.DB its lifetime is set on


def test_a_gorm_v1_lifetime_set_on_the_chained_sql_db(tmp_path: Path) -> None:
    store = _gorm_v1(lifetime="db.DB().SetConnMaxLifetime(10 * time.Minute)")
    assert _lint_store(tmp_path, store) == []


def test_a_gorm_v1_lifetime_set_on_the_sql_db_kept_in_a_variable(tmp_path: Path) -> None:
    store = _gorm_v1(lifetime="sqlDB := db.DB()\n\tsqlDB.SetConnMaxLifetime(10 * time.Minute)")
    assert _lint_store(tmp_path, store) == []


def test_a_gorm_v1_sqlite_file_is_no_server(tmp_path: Path) -> None:
    store = _gorm_v1('"sqlite3", "/var/lib/stock.db"', dialect="sqlite")
    assert _lint_store(tmp_path, store) == []


def test_a_gorm_v1_handle_over_a_pool_opened_before_is_that_pool(tmp_path: Path) -> None:
    opened = 'sqlDB, _ := sql.Open("mysql", dsn)\n\tsqlDB.SetConnMaxLifetime(time.Hour)\n\t'
    store = _gorm_v1('"mysql", sqlDB').replace(
        "db, err := gorm.Open", opened + "db, err := gorm.Open"
    )
    assert _lint_store(tmp_path, store) == []
