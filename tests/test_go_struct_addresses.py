"""A gRPC client's address carried in a configuration struct: a loader of the package
(in another file) fills the struct from the environment and returns it, the caller
passes the struct on whole and a constructor dials one of its fields; or a caller hands
another package's constructor a struct literal written in place, which the constructor
keeps in its own struct for a method to dial. Each file is parsed alone; the values are
joined once every file is read (code/imported.py)."""

from __future__ import annotations

from k8slb.code.facts import UNKNOWN, EnvRef
from k8slb.code.imported import resolve_imports
from k8slb.languages.go.parse import analyse_go

MODELS = """\
package models

type AppConfig struct {
	Port        string
	OrdersAddr  string
	BillingAddr string
}
"""

# the package's loader, in its own file: a struct of the `models` package
LOADER = """\
package main

import (
	"os"

	"x.io/shop/models"
)

func LoadConfig() (models.AppConfig, error) {
	config := models.AppConfig{
		Port:        os.Getenv("PORT"),
		OrdersAddr:  os.Getenv("ORDERS_ADDR"),
		BillingAddr: os.Getenv("BILLING_ADDR"),
	}
	return config, nil
}
"""

MAIN = """\
package main

import "log"

func main() {
	cfg, err := LoadConfig()
	if err != nil {
		log.Fatal(err)
	}
	shop, err := NewShop(cfg)
	if err != nil {
		log.Fatal(err)
	}
	shop.Run()
}
"""

SHOP = """\
package main

import "x.io/shop/models"

type Shop struct {
	orders  *OrdersClient
	billing *OrdersClient
}

func NewShop(config models.AppConfig) (*Shop, error) {
	orders, err := NewOrdersClient(config.OrdersAddr)
	if err != nil {
		return nil, err
	}
	billing, err := NewOrdersClient(config.BillingAddr)
	if err != nil {
		return nil, err
	}
	return &Shop{orders: orders, billing: billing}, nil
}

func (s *Shop) Run() {}
"""

CLIENT = """\
package main

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

type OrdersClient struct {
	conn *grpc.ClientConn
}

func NewOrdersClient(target string) (*OrdersClient, error) {
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	return &OrdersClient{conn: conn}, nil
}
"""


def _targets(files: dict[str, str]) -> list[object]:
    facts = [analyse_go(path, text.encode()) for path, text in files.items()]
    return [c.target for module in resolve_imports(facts) for c in module.channels]


def _shop(loader: str = LOADER, main: str = MAIN) -> dict[str, str]:
    return {
        "shop/models/models.go": MODELS,
        "shop/config.go": loader,
        "shop/main.go": main,
        "shop/shop.go": SHOP,
        "shop/client.go": CLIENT,
    }


def test_a_field_of_the_struct_another_files_loader_returns_is_dialled() -> None:
    """`cfg, err := LoadConfig()` (declared by another file of the package, filling a
    `models.AppConfig` from the environment), passed whole to `NewShop(config)`, which
    hands `config.OrdersAddr` to the constructor that dials it: each channel dials its
    own field's variable."""
    assert _targets(_shop()) == [EnvRef("ORDERS_ADDR"), EnvRef("BILLING_ADDR")]


def test_an_unexported_loader_is_followed_too() -> None:
    """`loadConfig()`: the package's other files call it as they call an exported one."""
    loader = LOADER.replace("func LoadConfig", "func loadConfig")
    main = MAIN.replace("LoadConfig()", "loadConfig()")
    assert _targets(_shop(loader, main)) == [EnvRef("ORDERS_ADDR"), EnvRef("BILLING_ADDR")]


def test_a_struct_set_field_by_field_is_followed() -> None:
    """`var config models.AppConfig`, then `config.OrdersAddr = os.Getenv(...)` one
    field at a time: the struct returned holds what each assignment wrote."""
    loader = """\
package main

import (
	"os"

	"x.io/shop/models"
)

func LoadConfig() (models.AppConfig, error) {
	var config models.AppConfig
	config.OrdersAddr = os.Getenv("ORDERS_ADDR")
	config.BillingAddr = "billing:9000"
	return config, nil
}
"""
    assert _targets(_shop(loader)) == [EnvRef("ORDERS_ADDR"), "billing:9000"]


def test_a_loader_that_changes_the_struct_otherwise_gives_no_address() -> None:
    """A loader that hands its struct to another function after filling it (which may
    change any field) fills nothing k8slb can tell: no address, no guess."""
    loader = LOADER.replace("\treturn config, nil", "\toverride(&config)\n\treturn config, nil")
    loader += "\nfunc override(c *models.AppConfig) { c.OrdersAddr = readFile() }\n"
    assert _targets(_shop(loader)) == [UNKNOWN]  # one channel, of no address known


def test_a_loader_calling_itself_ends() -> None:
    """A loader that leads back to itself (`return LoadConfig()`) is no address, and the
    reading ends."""
    loader = LOADER.replace(
        "\tconfig := models.AppConfig{",
        "\tif false {\n\t\treturn LoadConfig()\n\t}\n\tconfig := models.AppConfig{",
    )
    assert _targets(_shop(loader)) == [UNKNOWN]  # one channel, of no address known


GATEWAY = """\
package gateway

import (
	"context"

	"google.golang.org/grpc"
)

type Config struct {
	OrdersEndpoint string
	Verbose        bool
}

type Gateway struct {
	ordersEndpoint string
}

func New(cfg Config) (*Gateway, error) {
	return &Gateway{ordersEndpoint: cfg.OrdersEndpoint}, nil
}

func (g *Gateway) Start(ctx context.Context) error {
	conn, err := grpc.DialContext(ctx, g.ordersEndpoint, grpc.WithInsecure(), grpc.WithBlock())
	if err != nil {
		return err
	}
	_ = conn
	return nil
}
"""

GATEWAY_MAIN = """\
package main

import (
	"context"
	"os"

	"x.io/gw/pkg/gateway"
)

func main() {
	orders := os.Getenv("ORDERS_ENDPOINT")
	if orders == "" {
		orders = "localhost:9092"
	}
	gw, err := gateway.New(gateway.Config{
		OrdersEndpoint: orders,
		Verbose:        true,
	})
	if err != nil {
		panic(err)
	}
	if err := gw.Start(context.Background()); err != nil {
		panic(err)
	}
}
"""


def test_a_struct_literal_handed_to_another_packages_constructor_is_read() -> None:
    """`gateway.New(gateway.Config{OrdersEndpoint: orders})`, a literal written in the
    call: the constructor keeps the field in its own struct, and a method dials it."""
    files = {"gw/pkg/gateway/gateway.go": GATEWAY, "gw/cmd/gw/main.go": GATEWAY_MAIN}
    assert _targets(files) == [EnvRef("ORDERS_ENDPOINT", "localhost:9092")]


def test_a_map_literal_argument_is_still_not_read() -> None:
    """A literal of no named type (`map[string]string{...}`) written in a call is no
    struct k8slb follows: the call exports nothing for it, as before."""
    main = GATEWAY_MAIN.replace(
        "gateway.New(gateway.Config{\n\t\tOrdersEndpoint: orders,\n\t\tVerbose:        true,\n\t})",
        'gateway.New(map[string]string{"OrdersEndpoint": orders})',
    )
    facts = analyse_go("gw/cmd/gw/main.go", main.encode())
    assert not [
        k for k, v in facts.exports.items() if k.endswith(" New") and k.startswith("call ") and v
    ]
