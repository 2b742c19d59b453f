// CodinGame's JavaScript globals, for `cg:` bots run by arena (`node --require THIS bot.js`):
// readline() returns the next line of standard input without its line end (null once input
// has ended), print(...) writes its arguments to standard output and printErr(...) to standard
// error, each as one line, like console.log and console.error.
'use strict';

const fs = require('fs');

const chunk = Buffer.alloc(64 * 1024);
let pending = Buffer.alloc(0);
let ended = false;

// Waits a little without spinning, for a standard input opened non-blocking.
function pause(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function readline() {
  for (;;) {
    const newline = pending.indexOf(10);
    if (newline >= 0) {
      let end = newline;
      if (end > 0 && pending[end - 1] === 13) end -= 1;
      const line = pending.toString('utf8', 0, end);
      pending = pending.subarray(newline + 1);
      return line;
    }
    if (ended) {
      if (pending.length === 0) return null;
      const last = pending.toString('utf8');
      pending = Buffer.alloc(0);
      return last;
    }
    let read;
    try {
      read = fs.readSync(0, chunk, 0, chunk.length, null);
    } catch (e) {
      if (e.code === 'EAGAIN') {
        pause(1);
        continue;
      }
      if (e.code !== 'EOF') throw e;
      read = 0;
    }
    if (read === 0) {
      ended = true;
    } else {
      pending = Buffer.concat([pending, chunk.subarray(0, read)]);
    }
  }
}

function print(...args) {
  console.log(...args);
}

function printErr(...args) {
  console.error(...args);
}

globalThis.readline = readline;
globalThis.print = print;
globalThis.printErr = printErr;
