'use strict';
// One client pod: it calls the backend in a loop over its one channel (main.js's, made as
// the service makes it) until its stdin closes, and prints, at the end of each bucket of
// time, the answers of that bucket counted per pod, as a JSON line. With -inflight=N: N
// calls at once, and how each ended. It starts on a line on stdin, so that clients whose
// node took longer to load keep time together.
const grpc = require('@grpc/grpc-js');
const { backend } = require('./main');

const flags = { bucket: 250, inflight: 0 };
for (const argument of process.argv.slice(2)) {
  const [name, value] = argument.replace(/^-+/, '').split('=');
  if (!(name in flags)) throw new Error(`unknown flag ${argument}`);
  flags[name] = Number(value);
}

let counts = {};
// a call of the loop gives up after 5 s; a call in flight through a SIGTERM is given 30 s,
// far beyond the calls the tests make slow and the grace they stop within, so that a
// loaded machine's delays never pass for a stop's outcome
const deadlineMs = flags.inflight > 0 ? 30000 : 5000;

function call() {
  return new Promise((resolve) => {
    const deadline = new Date(Date.now() + deadlineMs);
    backend.where(Buffer.alloc(0), { deadline, waitForReady: true }, (error, answer) => {
      if (error) {
        resolve(grpc.status[error.code]);
        return;
      }
      const pod = answer.toString();
      counts[pod] = (counts[pod] || 0) + 1;
      resolve('done');
    });
  });
}

// the first line on stdin starts the calls; its end (the test counted enough) stops them
let stopped = false;
function go() {
  return new Promise((resolve) => {
    process.stdin.once('data', resolve);
    process.stdin.on('end', () => {
      stopped = true;
      resolve();
    });
  });
}

// the write is done before the exit: stdout is a pipe, which Node writes synchronously
function print(output) {
  process.stdout.write(JSON.stringify(output) + '\n');
}

async function main() {
  console.log('started');
  await go();
  if (flags.inflight > 0) {
    print(await Promise.all(Array.from({ length: flags.inflight }, call)));
    process.exit(0);
  }
  const ticks = setInterval(() => {
    print(counts);
    counts = {};
  }, flags.bucket);
  while (!stopped) {
    await call();
  }
  clearInterval(ticks);
  process.exit(0);
}

main();
