package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/status"
)

// The "proof" scheme resolves the channel's target to the addresses in PROOF_ADDRESSES: a
// balancer's one address, or every pod's, as a headless Service's DNS. It is registered by
// a variable's initialiser, not in init(): main.go dials in one, and Go initialises a
// package's variables before its init functions (and, this one, before main.go's: the
// files' variables are taken in the order of the file names).
var registered = register()

func register() bool {
	resolver.Register(proof{strings.Split(os.Getenv("PROOF_ADDRESSES"), ",")})
	return true
}

// One client pod: it calls the backend in a loop over its one channel until its stdin
// closes, and prints, at the end of each bucket of time, the answers of that bucket counted
// per pod, as a JSON line. With -inflight=N: N calls at once, and how each ended.
func main() {
	bucket := flag.Duration("bucket", 250*time.Millisecond, "the counts' time resolution")
	inflight := flag.Int("inflight", 0, "if set: this many calls at once, then stop")
	flag.Parse()
	if backend == nil || !registered {
		panic("no channel")
	}

	var lock sync.Mutex
	counts := map[string]int{}
	// a call of the loop gives up after 5 s; a call in flight through a SIGTERM is given 30 s,
	// far beyond the calls the tests make slow and the grace they stop within, so that a
	// loaded machine's delays never pass for a stop's outcome
	deadline := 5 * time.Second
	if *inflight > 0 {
		deadline = 30 * time.Second
	}
	call := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		request, answer := []byte{}, []byte{}
		err := backend.Invoke(ctx, "/proof.Echo/Where", &request, &answer,
			grpc.CallContentSubtype("raw"), grpc.WaitForReady(true))
		if err == nil {
			lock.Lock()
			counts[string(answer)]++
			lock.Unlock()
		}
		return err
	}

	fmt.Println("started")
	if *inflight > 0 { // how each call ended: "done", or its status code
		outcomes := make([]string, *inflight)
		var group sync.WaitGroup
		for i := range outcomes {
			group.Add(1)
			go func(i int) {
				defer group.Done()
				outcomes[i] = "done"
				if err := call(); err != nil {
					outcomes[i] = status.Code(err).String()
				}
			}(i)
		}
		group.Wait()
		out, _ := json.Marshal(outcomes)
		fmt.Println(string(out))
		return
	}
	var stopped atomic.Bool
	go func() { // the test closes stdin once it has counted enough calls
		io.Copy(io.Discard, os.Stdin)
		stopped.Store(true)
	}()
	go func() {
		for range time.Tick(*bucket) {
			lock.Lock()
			out, _ := json.Marshal(counts)
			counts = map[string]int{}
			lock.Unlock()
			fmt.Println(string(out))
		}
	}()
	for !stopped.Load() {
		call()
	}
}

type proof struct{ addresses []string }

func (p proof) Build(_ resolver.Target, cc resolver.ClientConn, _ resolver.BuildOptions) (resolver.Resolver, error) {
	state := resolver.State{}
	for _, address := range p.addresses {
		state.Addresses = append(state.Addresses, resolver.Address{Addr: address})
	}
	cc.UpdateState(state)
	return p, nil
}

func (proof) Scheme() string { return "proof" }

func (proof) ResolveNow(resolver.ResolveNowOptions) {}

func (proof) Close() {}
