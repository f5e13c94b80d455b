package grpc

// NewClient (grpc-go 1.63) over Dial, for type-checking code written for newer releases.
func NewClient(target string, opts ...DialOption) (*ClientConn, error) {
	return Dial(target, opts...)
}
