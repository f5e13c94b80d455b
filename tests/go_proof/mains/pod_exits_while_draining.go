// A gRPC server whose SIGTERM handler starts the graceful stop in a goroutine and exits at
// once: the handler is there, and nothing waits for the stop (the KLB403 case with one).
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
		go server.GracefulStop()
		os.Exit(0)
	}()
	fmt.Println(lis.Addr().(*net.TCPAddr).Port)
	if err := server.Serve(lis); err != nil {
		panic(err)
	}
}
