-- The simulators' state (src/sandbox/framework/store-pg.ts), in a schema of its own: simulated accounts, posts,
-- media, comments and counters survive a restart, and every API node serves the same sandbox. No Herald feature
-- reads these tables; the simulators reach them only through the sandbox store.
CREATE SCHEMA IF NOT EXISTS sandbox;

-- One document per simulator, kind and id, encoded as JSON (bigints, bytes, maps and sets tagged).
CREATE TABLE sandbox.documents (
  simulator  text NOT NULL,
  kind       text NOT NULL,
  id         text NOT NULL,
  -- What list({ owner }) finds the document by: an account, a conversation; NULL when none.
  owner      text,
  -- Insertion order: list() answers newest first by it.
  seq        bigserial NOT NULL,
  data       jsonb NOT NULL,
  PRIMARY KEY (simulator, kind, id)
);
-- Every list a route makes names an owner (an account, a thread); only the control surface lists a whole kind, and
-- it reads all of it anyway. The owner leads: an index starting (simulator, kind) like the primary key let the
-- planner, with the statistics of a table that grew fast, read a whole kind to find one id (a 10,000-post burst
-- spent most of its time in such look-ups).
CREATE INDEX sandbox_documents_owner ON sandbox.documents (owner, simulator, kind, seq);

-- Named counters: a simulated id is never handed out twice, a restart or a reset included.
CREATE TABLE sandbox.counters (
  simulator  text NOT NULL,
  name       text NOT NULL,
  value      numeric(40) NOT NULL,
  PRIMARY KEY (simulator, name)
);

-- Uploaded media bytes, by the simulator's own key.
CREATE TABLE sandbox.blobs (
  simulator  text NOT NULL,
  id         text NOT NULL,
  bytes      bytea NOT NULL,
  PRIMARY KEY (simulator, id)
);
