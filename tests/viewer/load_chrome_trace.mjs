// Loads Chrome trace JSON files (from `rtrace export --format chrome`) in a
// real trace viewer, speedscope, running in headless Chromium, and prints
// what the viewer shows: one JSON line per file.
//
// speedscope's built app (the npm package's dist/release) and the files are
// served on 127.0.0.1 (a free port); each file is opened as
// `index.html#profileURL=<its URL>`, and speedscope fetches and imports it.
// A file counts as loaded when speedscope names the tab after it
// ("<file> - speedscope"), which it does only after importing at least one
// profile; a failed import shows an alert ("Unrecognized format! ...", or
// "... it's empty!") or "Something went wrong". speedscope makes one profile
// per thread (pid, tid), named "<process_name> (pid P), <thread_name> (tid T)"
// from the trace's metadata; it reads complete (X) and B/E slices and drops
// instants. For each profile the line gives its name and total weight (the
// time covered by its top-level slices) from speedscope's profile selector,
// and the slice names from its Sandwich view (speedscope appends each slice's
// JSON args to its name; they are cut off here).
//
// Output per file: {"file", "ok", "loaded", "importer", "title", "profiles":
// [{"name", "weight", "weight_us", "slices"}], "warnings", "errors",
// "screenshot"}. "warnings" are speedscope's console warnings (for example
// "Tried to end ... when ... was on the top of the stack" for slices that do
// not nest); ok = loaded with no warning and no error.
// Exit status: 0 when every file is ok, 1 when one is not, 2 on bad usage or
// when the browser cannot be started.
//
// Usage: node tests/viewer/load_chrome_trace.mjs --modules DIR
//          [--chromium /usr/bin/chromium] [--screenshots DIR] [--timeout MS] FILE...
// DIR is a node_modules holding speedscope and playwright-core
// (`npm install --prefix X speedscope@1.25.0 playwright-core` gives X/node_modules).

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';

function usage(msg) {
  console.error(`load_chrome_trace: ${msg}`);
  console.error('usage: load_chrome_trace.mjs --modules DIR [--chromium PATH] [--screenshots DIR] [--timeout MS] FILE...');
  process.exit(2);
}

const opts = { chromium: '/usr/bin/chromium', timeout: 30000, files: [] };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  const val = () => process.argv[++i] ?? usage(`${a} needs a value`);
  if (a === '--modules') opts.modules = val();
  else if (a === '--chromium') opts.chromium = val();
  else if (a === '--screenshots') opts.screenshots = val();
  else if (a === '--timeout') opts.timeout = Number(val());
  else if (a.startsWith('--')) usage(`unknown option ${a}`);
  else opts.files.push(a);
}
if (!opts.modules) usage('--modules is required');
if (opts.files.length === 0) usage('no trace file given');

const require = createRequire(path.join(path.resolve(opts.modules), 'index.js'));
let chromium, dist;
try {
  ({ chromium } = require('playwright-core'));
  dist = path.join(path.dirname(require.resolve('speedscope/package.json')), 'dist', 'release');
  fs.accessSync(path.join(dist, 'index.html'));
} catch (e) {
  usage(`cannot load speedscope and playwright-core from ${opts.modules}: ${e.message}`);
}

const TYPES = {
  '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json',
  '.wasm': 'application/wasm', '.png': 'image/png', '.ico': 'image/x-icon', '.woff2': 'font/woff2',
  '.txt': 'text/plain',
};

// /trace/<i>/<name> is the i-th file; anything else comes from speedscope's dist.
const server = http.createServer((req, res) => {
  const p = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
  let file;
  const m = /^\/trace\/(\d+)\//.exec(p);
  if (m) file = opts.files[Number(m[1])];
  else {
    file = path.join(dist, path.normalize(p === '/' ? '/index.html' : p));
    if (!file.startsWith(dist + path.sep)) file = undefined;
  }
  if (!file) { res.writeHead(404); res.end(); return; }
  fs.readFile(file, (err, data) => {
    if (err) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    res.end(data);
  });
});
await new Promise((ok, fail) => server.once('error', fail).listen(0, '127.0.0.1', ok));
const base = `http://127.0.0.1:${server.address().port}`;

let browser;
try {
  browser = await chromium.launch({ executablePath: opts.chromium });
} catch (e) {
  server.close();
  usage(`cannot start ${opts.chromium}: ${e.message.split('\n')[0]}`);
}

// "12.34ms" and the like (speedscope's time formatter) in microseconds.
function micros(text) {
  const m = /^(\d+(?:\.\d+)?)(ns|µs|ms|s)$/.exec(text);
  if (m) return Number(m[1]) * { ns: 1e-3, 'µs': 1, ms: 1e3, s: 1e6 }[m[2]];
  const mins = /^(\d+):(\d\d)$/.exec(text);
  return mins ? (Number(mins[1]) * 60 + Number(mins[2])) * 1e6 : null;
}

async function load(index, file) {
  const out = {
    file, ok: false, loaded: false, importer: null, title: null, profiles: [],
    warnings: [], errors: [], screenshot: null,
  };
  const page = await browser.newPage({ viewport: { width: 1400, height: 2400 } });
  page.on('console', (msg) => {
    const text = msg.text();
    const imp = /^Importing as (.*)$/.exec(text);
    if (imp) out.importer = imp[1];
    // Chromium's own GPU driver notes ("[.WebGL-0x...]GL Driver Message") are not speedscope's.
    else if (msg.type() === 'warning' && !text.startsWith('[.WebGL-')) out.warnings.push(text);
    else if (msg.type() === 'error') out.errors.push(`console: ${text}`);
  });
  page.on('pageerror', (e) => out.errors.push(`page error: ${e.message}`));
  page.on('dialog', (d) => { out.errors.push(`alert: ${d.message()}`); d.dismiss().catch(() => {}); });
  const url = `${base}/trace/${index}/${encodeURIComponent(path.basename(file))}`;
  page.on('response', (r) => { if (r.url() === url && r.status() !== 200) out.errors.push(`HTTP ${r.status()} for the trace`); });
  try {
    await page.goto(`${base}/index.html#profileURL=${encodeURIComponent(url)}`);
    const deadline = Date.now() + opts.timeout;
    for (;;) {
      out.title = await page.title();
      if (out.title.endsWith(' - speedscope')) break;
      if (out.errors.length > 0) break;
      if ((await page.getByText('Something went wrong').count()) > 0) {
        out.errors.push('speedscope: Something went wrong');
        break;
      }
      if (Date.now() > deadline) {
        out.errors.push(`timeout: nothing loaded after ${opts.timeout} ms`);
        break;
      }
      await page.waitForTimeout(100);
    }
    out.loaded = out.title.endsWith(' - speedscope');
    if (out.loaded) {
      // The flame chart is drawn once the toolbar's view tabs are there.
      await page.getByText('Time Order').first().waitFor({ timeout: opts.timeout });
      if (opts.screenshots) {
        out.screenshot = path.join(opts.screenshots, `${path.basename(file)}.png`);
        await page.screenshot({ path: out.screenshot });
      }
      // The profile selector (a table, one row per profile, hidden until
      // hovered or 't' is pressed) exists only when there are several.
      const rows = page.locator('tbody tr[title]');
      const n = await rows.count();
      for (let i = 0; i < n; i++) {
        const cells = await rows.nth(i).locator('td').allInnerTexts();
        out.profiles.push({ name: cells[1].trim(), weight: cells[2].trim(), weight_us: micros(cells[2].trim()) });
      }
      if (n === 0) {
        // One profile: its name is the toolbar's middle line.
        const name = (await page.evaluate(() => document.body.innerText)).split('\n')[1];
        out.profiles.push({ name: name.trim(), weight: null, weight_us: null });
      }
      await page.keyboard.press('3'); // the Sandwich view: a table of slice names
      for (let i = 0; i < out.profiles.length; i++) {
        if (n > 0) {
          await page.keyboard.press('t');
          await rows.nth(i).click();
          await page.getByText(`(${i + 1}/${n})`, { exact: true }).waitFor({ timeout: opts.timeout });
        }
        await page.getByText('Symbol Name').first().waitFor({ timeout: opts.timeout });
        const names = await page.evaluate(() => [...document.querySelectorAll('tr:not([title])')]
          .map((tr) => [...tr.querySelectorAll('td')])
          .filter((tds) => tds.length === 3)
          .map((tds) => tds[2].innerText.trim()));
        out.profiles[i].slices = names.map((s) => s.replace(/ [{[].*$/s, ''));
      }
    }
  } catch (e) {
    out.errors.push(`driver: ${e.message.split('\n')[0]}`);
  }
  await page.close();
  out.ok = out.loaded && out.warnings.length === 0 && out.errors.length === 0;
  return out;
}

let allOk = true;
for (let i = 0; i < opts.files.length; i++) {
  const r = await load(i, opts.files[i]);
  allOk &&= r.ok;
  console.log(JSON.stringify(r));
}
await browser.close();
server.close();
process.exit(allOk ? 0 : 1);
