/* global Bun, Response */
/**
 * A stand-in for cronbase 0.4.0, the scheduler issue 22 compares Crondeck with, which is not
 * published anywhere this machine can install from: the same runtime (Bun, its HTTP server and
 * its built-in SQLite) and the same store settings (a file database in WAL journal mode with
 * foreign keys on, `synchronous` left at SQLite's default, FULL, so that every commit is flushed
 * to the disk), doing per request the database work cronbase does: a creation looks for a job of
 * that name, then INSERTs the job, which commits alone, and SELECTs the row it wrote; a read is a
 * SELECT by id. It does less than cronbase around that (no cron parsing, next-run search or
 * description of the schedule, a minimal check of the body), so it is, if anything, faster than
 * the real thing.
 *
 * Run by bench/scenarios/ with scripts/bun.sh's Bun: `STANDIN_DATA_DIR=DIR bun cronbaseStandIn.mjs`.
 * Prints one line of JSON, `{"port":N,"journalMode":"wal","synchronous":2}`, once it listens.
 */
import { Database } from 'bun:sqlite';
import { join } from 'node:path';

const db = new Database(join(process.env.STANDIN_DATA_DIR ?? '.', 'standin.db'), { create: true });
db.exec('PRAGMA journal_mode = WAL');
db.exec('PRAGMA foreign_keys = ON');
db.exec('PRAGMA busy_timeout = 5000');
db.exec(`
  CREATE TABLE IF NOT EXISTS jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    schedule TEXT NOT NULL,
    command TEXT NOT NULL,
    timeout INTEGER NOT NULL DEFAULT 0,
    enabled INTEGER NOT NULL DEFAULT 1,
    description TEXT NOT NULL DEFAULT '',
    tags TEXT NOT NULL DEFAULT '[]',
    timezone TEXT,
    created_at TEXT NOT NULL DEFAULT (datetime('now')),
    next_run TEXT,
    last_status TEXT,
    last_run TEXT
  );
  CREATE INDEX IF NOT EXISTS jobs_next_run ON jobs (next_run);
`);

const insert = db.prepare(
  `INSERT INTO jobs (name, schedule, command, timeout, enabled, description, tags, timezone, next_run)
   VALUES ($name, $schedule, $command, $timeout, $enabled, $description, $tags, $timezone, datetime('now', '+1 day'))`,
);
const byId = db.prepare('SELECT * FROM jobs WHERE id = $id');
const byName = db.prepare('SELECT * FROM jobs WHERE name = $name');

function view(row) {
  return { ...row, enabled: row.enabled === 1, tags: JSON.parse(row.tags) };
}

function problem(status, error) {
  return Response.json({ error }, { status });
}

async function create(request) {
  let body;
  try {
    body = await request.json();
  } catch {
    return problem(400, 'invalid JSON');
  }
  for (const field of ['name', 'schedule', 'command']) {
    if (typeof body?.[field] !== 'string' || body[field] === '') return problem(400, `${field} is required`);
  }
  // The check and the insert run in one turn of this single thread: no other creation comes between.
  if (byName.get({ $name: body.name })) return problem(409, `a job named ${body.name} already exists`);
  const { lastInsertRowid } = insert.run({
    $name: body.name,
    $schedule: body.schedule,
    $command: body.command,
    $timeout: body.timeout ?? 0,
    $enabled: body.enabled === false ? 0 : 1,
    $description: body.description ?? '',
    $tags: JSON.stringify(body.tags ?? []),
    $timezone: body.timezone ?? null,
  });
  return Response.json(view(byId.get({ $id: Number(lastInsertRowid) })), { status: 201 });
}

function read(id) {
  const row = byId.get({ $id: id });
  return row ? Response.json(view(row)) : problem(404, `job ${id} not found`);
}

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch(request) {
    const { pathname } = new URL(request.url);
    if (pathname === '/api/jobs' && request.method === 'POST') return create(request);
    const match = /^\/api\/jobs\/(\d+)$/.exec(pathname);
    if (match && request.method === 'GET') return read(Number(match[1]));
    return problem(404, 'not found');
  },
});

const settings = {
  journalMode: db.query('PRAGMA journal_mode').get().journal_mode,
  synchronous: db.query('PRAGMA synchronous').get().synchronous,
};
console.log(JSON.stringify({ port: server.port, ...settings }));
process.on('SIGTERM', () => {
  server.stop(true);
  db.close();
  process.exit(0);
});
