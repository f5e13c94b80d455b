'use strict';
// The proof's messages are raw bytes, so it needs no .proto: the service's one method,
// described as grpc-js takes it, with Buffers in and out (as go_proof/codec.go does).
const grpc = require('@grpc/grpc-js');

const bytes = (buffer) => buffer;

const definition = {
  where: {
    path: '/proof.Echo/Where',
    requestStream: false,
    responseStream: false,
    requestSerialize: bytes,
    requestDeserialize: bytes,
    responseSerialize: bytes,
    responseDeserialize: bytes,
  },
};

module.exports = { definition, Echo: grpc.makeGenericClientConstructor(definition, 'Echo') };
