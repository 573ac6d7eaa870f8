-- Creating a post in one round trip (docs/decisions.md "Creating a post in one statement"): the post, its targets
-- and, when it is scheduled, one `publish_target` job per target, written by one function call inside the
-- caller's transaction (the idempotency key, the events and the stored answer commit with them). Owned by the
-- posts repository (src/features/posts/posts.repo.ts, createPostRows); nothing else calls it.
--
-- A job due within `wake_within_ms` goes through graphile_worker.add_job (which notifies graphile's workers) and
-- Herald's wake-up notification (src/jobs/waker.ts). A job due later is inserted into graphile-worker's job table
-- with no notification at all: every notifying transaction takes a lock at commit that serialises it with every
-- other, and nothing needs waking for a job due after the waker's next look at the queue. Its target is new, so no
-- job carries its key yet: the insert is what add_job's `replace` mode does for a key it has never seen.
CREATE FUNCTION posts_create(
  p_id text, p_workspace_id uuid, p_brand_id text, p_content text, p_platforms text[], p_platform_options jsonb,
  p_media_ids text[], p_status text, p_publish_now boolean, p_schedule_at timestamptz, p_created_via text,
  p_created_by text, p_timezone text, p_metadata jsonb, p_brand_additions jsonb,
  t_ids text[], t_platforms text[], t_connection_ids text[], t_sandbox boolean, t_status text,
  job_run_at timestamptz, job_schedule_at text, wake_within_ms integer
) RETURNS posts LANGUAGE plpgsql AS $$
DECLARE
  post posts;
  task integer;
BEGIN
  INSERT INTO posts (id, workspace_id, brand_id, content, platforms, platform_options, media_ids, status, publish_now,
                     schedule_at, created_via, created_by, timezone, metadata, brand_additions)
  VALUES (p_id, p_workspace_id, p_brand_id, p_content, p_platforms, p_platform_options, p_media_ids, p_status,
          p_publish_now, p_schedule_at, p_created_via, p_created_by, p_timezone, p_metadata, p_brand_additions)
  RETURNING * INTO post;

  INSERT INTO post_targets (id, workspace_id, post_id, position, platform, connection_id, sandbox, status)
  SELECT t.id, p_workspace_id, p_id, t.ord - 1, t.platform, t.connection_id, t_sandbox, t_status
    FROM unnest(t_ids, t_platforms, t_connection_ids) WITH ORDINALITY AS t(id, platform, connection_id, ord);

  IF job_run_at IS NULL OR cardinality(t_ids) = 0 THEN
    RETURN post;
  END IF;
  IF job_run_at < now() + make_interval(secs => wake_within_ms / 1000.0) THEN
    PERFORM graphile_worker.add_job('publish_target',
              json_build_object('target_id', t.id, 'schedule_at', job_schedule_at),
              run_at => job_run_at, job_key => 'publish:' || t.id, max_attempts => 10, job_key_mode => 'replace')
       FROM unnest(t_ids) AS t(id);
    PERFORM pg_notify('herald_publish_scheduled', to_char(job_run_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
    RETURN post;
  END IF;
  SELECT id INTO task FROM graphile_worker._private_tasks WHERE identifier = 'publish_target';
  IF task IS NULL THEN
    INSERT INTO graphile_worker._private_tasks (identifier) VALUES ('publish_target')
      ON CONFLICT (identifier) DO UPDATE SET identifier = EXCLUDED.identifier RETURNING id INTO task;
  END IF;
  INSERT INTO graphile_worker._private_jobs (task_id, payload, run_at, max_attempts, key)
  SELECT task,
         json_build_object('target_id', t.id, 'schedule_at', job_schedule_at),
         job_run_at, 10, 'publish:' || t.id
    FROM unnest(t_ids) AS t(id);
  RETURN post;
END $$;
