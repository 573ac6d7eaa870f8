-- Claims of queue slots (docs/queues.md "What the lock costs"): adds to one queue that arrive together get their
-- slots from one short transaction of their own (src/features/queues/queues.claims.ts), which records one claim per
-- add; each add's own transaction then writes its post at the claimed slot and deletes the claim, both committing
-- together. A claim whose add failed stays until `expires_at`; the next claim transaction (or a locked add) of the
-- queue deletes it, and its slot is free again. The primary key keeps two claims off one slot, and the unique index
-- posts_queue_slot_key keeps two posts off one.
CREATE TABLE queue_claims (
  queue_id     text NOT NULL REFERENCES queues (id) ON DELETE CASCADE,
  slot         timestamptz(3) NOT NULL,
  workspace_id uuid NOT NULL,
  claim_id     text NOT NULL,
  expires_at   timestamptz(3) NOT NULL,
  PRIMARY KEY (queue_id, slot)
);

-- Claims for a batch of `next` adds to one queue in one statement (src/features/queues/queues.claims.ts): locks
-- the queue's row FOR NO KEY UPDATE (adds writing their posts at claimed slots go on meanwhile; locked adds and
-- changes of the queue wait), deletes the queue's expired claims (their slots free again: the fill hint moves back
-- to them), then takes the first cardinality(p_claim_ids) of `p_candidates` (the queue's consecutive slots from
-- `p_start`, computed by the caller with the rules of the row as it was at `p_updated_at`) from the fill hint on
-- that no post and no claim holds, records a claim for each and moves the hint past the last. One statement, so
-- the posts and the claims are read in one snapshot: an add committing meanwhile is seen by its claim or its post.
-- NULL (no claim made) when the candidates cannot answer: the queue is gone or changed, has a spacing, its hint is
-- before the candidates, or too few of them are free; the caller then claims from the locked row itself.
-- Its commit need not wait for the disk (synchronous_commit off): a post written at a claim commits after it, and
-- that commit's flush carries the claim's, so a crash loses only claims no post used.
CREATE FUNCTION queue_claims_take(
  p_workspace_id uuid, p_queue_id text, p_updated_at timestamptz, p_now timestamptz, p_start timestamptz,
  p_candidates timestamptz[], p_claim_ids text[], p_ttl_seconds integer, p_lock_timeout text
) RETURNS timestamptz[] LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  q queues;
  n integer := cardinality(p_claim_ids);
  reaped timestamptz;
  hint timestamptz;
  picked timestamptz[];
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout, true);
  PERFORM set_config('synchronous_commit', 'off', true);
  SELECT * INTO q FROM queues WHERE workspace_id = p_workspace_id AND id = p_queue_id FOR NO KEY UPDATE;
  IF NOT FOUND OR q.updated_at <> p_updated_at OR q.min_spacing_minutes > 0 THEN
    RETURN NULL;
  END IF;
  WITH gone AS (
    DELETE FROM queue_claims WHERE ctid IN (
      SELECT ctid FROM queue_claims
       WHERE queue_id = p_queue_id AND workspace_id = p_workspace_id AND expires_at < now()
         FOR UPDATE SKIP LOCKED)
    RETURNING slot)
  SELECT min(slot) INTO reaped FROM gone;
  hint := q.fill_hint;
  IF reaped IS NOT NULL AND hint IS NOT NULL AND reaped < hint THEN
    hint := reaped;
    UPDATE queues SET fill_hint = hint WHERE workspace_id = p_workspace_id AND id = p_queue_id;
  END IF;
  IF greatest(p_now, coalesce(hint, p_now)) < p_start THEN
    RETURN NULL;
  END IF;
  SELECT array_agg(c ORDER BY c) INTO picked FROM (
    SELECT c FROM unnest(p_candidates) AS c
     WHERE c >= greatest(p_now, coalesce(hint, p_now))
       AND NOT EXISTS (SELECT 1 FROM posts p WHERE p.queue_id = p_queue_id AND p.queue_slot = c)
       AND NOT EXISTS (SELECT 1 FROM queue_claims k WHERE k.queue_id = p_queue_id AND k.slot = c)
     ORDER BY c LIMIT n) AS free;
  IF coalesce(cardinality(picked), 0) < n THEN
    RETURN NULL;
  END IF;
  INSERT INTO queue_claims (queue_id, slot, workspace_id, claim_id, expires_at)
  SELECT p_queue_id, s, p_workspace_id, c, now() + make_interval(secs => p_ttl_seconds)
    FROM unnest(picked, p_claim_ids) AS x(s, c);
  UPDATE queues SET fill_hint = picked[n] + interval '1 millisecond'
   WHERE workspace_id = p_workspace_id AND id = p_queue_id;
  RETURN picked;
END $$;

-- A queued post created at the slot its add claimed, in one round trip (src/features/posts/posts.create.repo.ts,
-- createClaimedPostRows): the claim deleted, then the post (its place in the queue written with it: an update after
-- the insert would write a second version of the row and of every index entry it changes), its targets and its
-- publish jobs at the slot, as posts_create (migration 0031) writes them, all committing with the caller's
-- transaction. The arguments are posts_create's, whose schedule and job times the slot replaces (`job_run_at` NULL
-- still means no jobs), then the claim. NULL (nothing written) when the claim is gone (expired and taken back, or
-- dropped by a change of the queue's rules or by the queue's deletion, which delete the claims first and so wait
-- for an add deleting its own): the caller then takes a slot under the queue's lock.
CREATE FUNCTION posts_create_claimed(
  p_id text, p_workspace_id uuid, p_brand_id text, p_content text, p_platforms text[], p_platform_options jsonb,
  p_media_ids text[], p_status text, p_publish_now boolean, p_schedule_at timestamptz, p_created_via text,
  p_created_by text, p_timezone text, p_metadata jsonb, p_brand_additions jsonb,
  t_ids text[], t_platforms text[], t_connection_ids text[], t_sandbox boolean, t_status text,
  job_run_at timestamptz, job_schedule_at text, wake_within_ms integer,
  q_queue_id text, q_slot timestamptz, q_claim_id text
) RETURNS posts LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  post posts;
  task integer;
  slot_text text := to_char(q_slot AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
BEGIN
  DELETE FROM queue_claims
   WHERE queue_id = q_queue_id AND slot = q_slot AND claim_id = q_claim_id AND workspace_id = p_workspace_id;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  INSERT INTO posts (id, workspace_id, brand_id, content, platforms, platform_options, media_ids, status, publish_now,
                     schedule_at, created_via, created_by, timezone, metadata, brand_additions, queue_id, queue_slot)
  VALUES (p_id, p_workspace_id, p_brand_id, p_content, p_platforms, p_platform_options, p_media_ids, p_status,
          p_publish_now, q_slot, p_created_via, p_created_by, p_timezone, p_metadata, p_brand_additions, q_queue_id,
          q_slot)
  RETURNING * INTO post;

  INSERT INTO post_targets (id, workspace_id, post_id, position, platform, connection_id, sandbox, status)
  SELECT t.id, p_workspace_id, p_id, t.ord - 1, t.platform, t.connection_id, t_sandbox, t_status
    FROM unnest(t_ids, t_platforms, t_connection_ids) WITH ORDINALITY AS t(id, platform, connection_id, ord);

  IF job_run_at IS NULL OR cardinality(t_ids) = 0 THEN
    RETURN post;
  END IF;
  IF q_slot < now() + make_interval(secs => wake_within_ms / 1000.0) THEN
    PERFORM graphile_worker.add_job('publish_target',
              json_build_object('target_id', t.id, 'schedule_at', slot_text),
              run_at => q_slot, job_key => 'publish:' || t.id, max_attempts => 10, job_key_mode => 'replace')
       FROM unnest(t_ids) AS t(id);
    PERFORM pg_notify('herald_publish_scheduled', slot_text);
    RETURN post;
  END IF;
  SELECT id INTO task FROM graphile_worker._private_tasks WHERE identifier = 'publish_target';
  IF task IS NULL THEN
    INSERT INTO graphile_worker._private_tasks (identifier) VALUES ('publish_target')
      ON CONFLICT (identifier) DO UPDATE SET identifier = EXCLUDED.identifier RETURNING id INTO task;
  END IF;
  INSERT INTO graphile_worker._private_jobs (task_id, payload, run_at, max_attempts, key)
  SELECT task, json_build_object('target_id', t.id, 'schedule_at', slot_text), q_slot, 10, 'publish:' || t.id
    FROM unnest(t_ids) AS t(id);
  RETURN post;
END $$;
