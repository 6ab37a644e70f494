// Runs a chapter's WebAssembly build under node, as the page's worker does (a fresh instance,
// the chapter's arguments), then copies what it wrote under /out to a folder of the disk:
//
//   node tools/wasm/run_in_node.js build/wasm/bin/ch01_dot_product_scores.js OUT [FILES.js] -- --dump /out/dump …
//
// FILES.js: a page's trained_model.js, whose files the run reads (--text). Its exit code is the
// chapter's. (tests/live_page.py compares such runs with the native program's.)
'use strict';
const fs = require('fs');
const path = require('path');

const [program, out, ...rest] = process.argv.slice(2);
const dash = rest.indexOf('--');
const extra = dash < 0 ? [] : rest.slice(0, dash);
const args = dash < 0 ? rest : rest.slice(dash + 1);
const files = {};
for (const script of extra) {
  const window = {};
  new Function('window', fs.readFileSync(script, 'utf8'))(window);
  Object.assign(files, window.tutorialTrainedModel || {});
}

function copyOut(FS, from, to) {
  if (!FS.analyzePath(from).exists) return;
  fs.mkdirSync(to, { recursive: true });
  for (const name of FS.readdir(from)) {
    if (name === '.' || name === '..') continue;
    const source = `${from}/${name}`;
    if (FS.isDir(FS.stat(source).mode)) copyOut(FS, source, path.join(to, name));
    else fs.writeFileSync(path.join(to, name), FS.readFile(source));
  }
}

const createChapter = require(path.resolve(program));
let exitCode = null;
const compiled = new WebAssembly.Module(fs.readFileSync(program.replace(/\.js$/, '.wasm')));
createChapter({
  instantiateWasm: (imports, done) => {
    WebAssembly.instantiate(compiled, imports).then((instance) => done(instance));
    return {};
  },
  preRun: [(m) => {
    m.ENV.TUTORIAL_TRAINED = '/trained';
    for (const [file, base64] of Object.entries(files)) {
      file.split('/').slice(1, -1).reduce((at, folder) => {
        const next = `${at}/${folder}`;
        if (!m.FS.analyzePath(next).exists) m.FS.mkdir(next);
        return next;
      }, '');
      m.FS.writeFile(file, Buffer.from(base64, 'base64'));
    }
    m.FS.mkdir('/out');
  }],
  onExit: (code) => { exitCode = code; },
  quit: (code) => { exitCode = code; },
}).then((m) => {
  try {
    const returned = m.callMain(args);
    if (exitCode === null) exitCode = returned;
  } catch (e) {
    if (exitCode === null) throw e;
  }
  copyOut(m.FS, '/out', out);
  process.exitCode = exitCode;
});
