// A gRPC server as many Node services start one: no keepalive options, and on SIGTERM the
// server stops at once. `k8slb fix` is run on this file; the proof runs what it writes.
const grpc = require('@grpc/grpc-js');
const { register } = require('./service');

function main() {
  const server = new grpc.Server();
  register(server, process.argv[2]);
  process.on('SIGTERM', () => {
    server.forceShutdown();
  });
  server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => {
    if (error) throw error;
    console.log(port);
  });
}

main();
