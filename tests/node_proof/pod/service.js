'use strict';
const { definition } = require('./echo');

// register serves /proof.Echo/Where on the server: it answers with the pod's name, after
// PROOF_DELAY_MS milliseconds (a slow call, to be in flight when the pod is stopped).
function register(server, name) {
  const delay = Number(process.env.PROOF_DELAY_MS || 0);
  const answer = Buffer.from(name);
  const where = (call, callback) => {
    if (delay > 0) {
      setTimeout(() => callback(null, answer), delay);
    } else {
      callback(null, answer); // a timer, even of 0 ms, would slow the load scenarios
    }
  };
  server.addService(definition, { where });
}

module.exports = { register };
