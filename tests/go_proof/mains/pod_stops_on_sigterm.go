// A gRPC server as many Go services start one: no keepalive options, and on SIGTERM the
// server stops at once. `k8slb fix` is run on this file; the proof builds what it writes.
package main

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"google.golang.org/grpc"
)

func main() {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	server := grpc.NewServer()
	register(server, os.Args[1])
	go func() {
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, syscall.SIGTERM)
		<-stop
		server.Stop()
	}()
	fmt.Println(lis.Addr().(*net.TCPAddr).Port)
	if err := server.Serve(lis); err != nil {
		panic(err)
	}
}
