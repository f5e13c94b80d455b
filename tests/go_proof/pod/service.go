package main

import (
	"context"
	"os"
	"strconv"
	"time"

	"google.golang.org/grpc"
)

// register serves /proof.Echo/Where on the server: it answers with the pod's name, after
// PROOF_DELAY_MS milliseconds (a slow call, to be in flight when the pod is stopped).
func register(server *grpc.Server, name string) {
	delay, _ := strconv.Atoi(os.Getenv("PROOF_DELAY_MS"))
	where := func(_ interface{}, _ context.Context, decode func(interface{}) error, _ grpc.UnaryServerInterceptor) (interface{}, error) {
		var request []byte
		if err := decode(&request); err != nil {
			return nil, err
		}
		time.Sleep(time.Duration(delay) * time.Millisecond)
		answer := []byte(name)
		return &answer, nil
	}
	server.RegisterService(&grpc.ServiceDesc{
		ServiceName: "proof.Echo",
		HandlerType: (*interface{})(nil),
		Methods:     []grpc.MethodDesc{{MethodName: "Where", Handler: where}},
	}, struct{}{})
}
