// A gRPC client as many Node services make one: one client of the backend's DNS name, made
// when the module loads and kept for the life of the process. `k8slb fix` is run on this
// file; the proof runs what it writes.
const grpc = require('@grpc/grpc-js');
const { Echo } = require('./echo');

const backend = new Echo('dns:///backend.shop.svc.cluster.local:50051', grpc.credentials.createInsecure());

module.exports = { backend };
