'use strict';
// One client pod: it calls the backend in a loop over its one channel (main.js's, made as
// the service makes it); the answers, counted per pod and per bucket of time since the
// start, are printed as JSON. With -inflight=N: N calls at once, and how each ended. It
// starts on a line on stdin, so that clients whose node took longer to load keep time
// together.
const grpc = require('@grpc/grpc-js');
const { backend } = require('./main');

const flags = { seconds: 4, bucket: 250, inflight: 0 };
for (const argument of process.argv.slice(2)) {
  const [name, value] = argument.replace(/^-+/, '').split('=');
  if (!(name in flags)) throw new Error(`unknown flag ${argument}`);
  flags[name] = Number(value);
}

let start = 0;
const counts = {};

function call() {
  return new Promise((resolve) => {
    const deadline = new Date(Date.now() + 5000);
    backend.where(Buffer.alloc(0), { deadline, waitForReady: true }, (error, answer) => {
      if (error) {
        resolve(grpc.status[error.code]);
        return;
      }
      const at = Math.floor((Date.now() - start) / flags.bucket);
      const bucket = (counts[at] = counts[at] || {});
      const pod = answer.toString();
      bucket[pod] = (bucket[pod] || 0) + 1;
      resolve('done');
    });
  });
}

function go() {
  return new Promise((resolve) => {
    process.stdin.once('data', () => {
      process.stdin.pause();
      resolve();
    });
  });
}

async function main() {
  console.log('started');
  await go();
  start = Date.now();
  let output;
  if (flags.inflight > 0) {
    output = await Promise.all(Array.from({ length: flags.inflight }, call));
  } else {
    const end = start + flags.seconds * 1000;
    while (Date.now() < end) {
      await call();
    }
    output = counts;
  }
  // the write is done before the exit: stdout is a pipe, which Node writes synchronously
  process.stdout.write(JSON.stringify(output) + '\n');
  process.exit(0);
}

main();
