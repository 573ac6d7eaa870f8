-- Ending an OAuth grant, as one function owned by src/features/oauth/grants.repo.ts (docs/tables.md): revoking a
-- grant's access key (src/features/keys/keys.repo.ts) calls it in the same statement, so the key and its grant
-- are revoked together without the keys feature writing oauth_grants itself.
CREATE FUNCTION herald_revoke_oauth_grant(grant_id text, reason text) RETURNS void
LANGUAGE sql VOLATILE AS $$
  UPDATE oauth_grants SET revoked_at = now(), revoked_reason = herald_revoke_oauth_grant.reason
   WHERE id = herald_revoke_oauth_grant.grant_id AND revoked_at IS NULL
$$;
