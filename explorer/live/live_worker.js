// live_worker.js: the Web Worker that runs the chapter's WebAssembly, and what it answers the
// page: { ready }, { progress: a printed line }, { exitCode, report, errors, ms, trained } or
// { crashed }. The worker is made from a Blob of workerMain's text (from file:// a browser
// refuses new Worker('x.js')), so workerMain uses nothing outside itself.
'use strict';

// The worker unpacks and compiles the program once ({ glue, wasm }), then runs it once a
// { args, report }, each run in a fresh instance (a chapter's main() runs once per process,
// as in the terminal). What a run trained and kept under /trained is written into the next
// runs' file systems, as the terminal's trained/ folder is read back: a model is trained once
// while the page is open. The page holds a copy ({ trained }), for the worker that replaces
// this one (after a stop); { files } are files to give every run (the model beside the page).
function workerMain() {
  let compiled = null, fingerprint = '';
  const files = new Map();  // path → bytes, written into every run's file system
  const KEPT_AT_MOST = 256 * 1024 * 1024;  // bytes of trained models kept, at most
  let kept = 0;
  const keep = (path, bytes) => {
    if (kept + bytes.length > KEPT_AT_MOST) return false;
    files.set(path, bytes);
    kept += bytes.length;
    return true;
  };
  // what the run wrote under `dir` that no run had: kept, and returned as {path: bytes}
  const keepTrained = (FS, dir, added = {}) => {
    if (!FS.analyzePath(dir).exists) return added;
    for (const name of FS.readdir(dir)) {
      const path = `${dir}/${name}`;
      if (name === '.' || name === '..' || files.has(path)) continue;
      if (FS.isDir(FS.stat(path).mode)) keepTrained(FS, path, added);
      else if (keep(path, FS.readFile(path))) added[path] = files.get(path);
    }
    return added;
  };
  // FNV-1a of the program's bytes: a model is read back only by the program that trained it
  const hashOf = (bytes) => {
    let h = 0x811c9dc5;
    for (let i = 0; i < bytes.length; ++i) h = Math.imul(h ^ bytes[i], 0x01000193);
    return `${(h >>> 0).toString(16)}-${bytes.length}`;
  };
  const bytesOf = (base64) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const unpack = async (base64) => {
    const bytes = bytesOf(base64);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  };
  const run = async ({ args, report }) => {
    const errors = [];
    let exitCode = null;
    let lastProgress = 0;
    const progressed = (line) => {
      const now = Date.now();
      if (now - lastProgress > 100) { lastProgress = now; postMessage({ progress: line }); }
    };
    const module = await self.createChapter({
      // what it prints while it runs is its progress (a training's step N/M), at most ten lines a second
      print: progressed,
      printErr: (line) => { errors.push(line); progressed(line); },
      instantiateWasm: (imports, done) => {
        WebAssembly.instantiate(compiled, imports).then((instance) => done(instance));
        return {};
      },
      preRun: [(m) => {
        m.ENV.TUTORIAL_TRAINED = '/trained';
        m.ENV.TUTORIAL_PROGRAM_FINGERPRINT = fingerprint;
        for (const [path, bytes] of files) {
          const folders = path.split('/').slice(1, -1);
          folders.reduce((at, folder) => {
            const next = `${at}/${folder}`;
            if (!m.FS.analyzePath(next).exists) m.FS.mkdir(next);
            return next;
          }, '');
          m.FS.writeFile(path, bytes);
        }
        m.FS.mkdir('/run');
      }],
      onExit: (code) => { exitCode = code; },
    });
    const started = performance.now();
    try {
      const returned = module.callMain(args);
      if (exitCode === null) exitCode = returned;
    } catch (e) {
      if (exitCode === null) {
        postMessage({ crashed: String(e && e.message || e), errors });
        return;
      }
    }
    const ms = performance.now() - started;
    const trained = exitCode === 0 || exitCode === 1 ? keepTrained(module.FS, '/trained') : {};
    const reported = module.FS.analyzePath(report).exists ? module.FS.readFile(report, { encoding: 'utf8' }) : null;
    postMessage({ exitCode, report: reported, errors, ms, trained });
  };
  // one message after the other: a run waits for the program to be compiled
  let queue = Promise.resolve();
  onmessage = ({ data }) => {
    queue = queue.then(() => handle(data)).catch((e) => postMessage({ crashed: String(e && e.message || e), errors: [] }));
  };
  const handle = async (data) => {
    if (data.glue) {
      const glue = new TextDecoder().decode(await unpack(data.glue));
      (0, eval)(`${glue}\n;self.createChapter = createChapter;`);
      const wasm = await unpack(data.wasm);
      fingerprint = hashOf(wasm);
      compiled = await WebAssembly.compile(wasm);
      postMessage({ ready: true });
    } else if (data.files) {
      for (const [path, base64] of Object.entries(data.files)) files.set(path, bytesOf(base64));
    } else if (data.trained) {  // what the worker before this one kept
      for (const [path, bytes] of Object.entries(data.trained)) keep(path, bytes);
    } else if (data.args) {
      await run(data);
    }
  };
}
