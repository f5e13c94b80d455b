package insecure

// Plaintext transport credentials as grpc-go 1.34 has them, for code written for newer releases.

import (
	"context"
	"net"

	"google.golang.org/grpc/credentials"
)

func NewCredentials() credentials.TransportCredentials { return plaintext{} }

type plaintext struct{}

type info struct{ credentials.CommonAuthInfo }

func (info) AuthType() string { return "insecure" }

func (plaintext) ClientHandshake(_ context.Context, _ string, c net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return c, info{credentials.CommonAuthInfo{SecurityLevel: credentials.NoSecurity}}, nil
}

func (plaintext) ServerHandshake(c net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return c, info{credentials.CommonAuthInfo{SecurityLevel: credentials.NoSecurity}}, nil
}

func (plaintext) Info() credentials.ProtocolInfo {
	return credentials.ProtocolInfo{SecurityProtocol: "insecure"}
}

func (p plaintext) Clone() credentials.TransportCredentials { return p }

func (plaintext) OverrideServerName(string) error { return nil }
