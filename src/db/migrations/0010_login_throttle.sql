-- Failed sign-ins slow down where they come from instead of locking the email: an outsider could otherwise keep
-- any account out by guessing wrong five times (src/features/users/users.service.ts, SIGN_IN_THROTTLE). One row
-- per throttled key: an (email, client address) pair or a client address alone, both stored as SHA-256 only.
DROP TABLE login_failures;

CREATE TABLE login_throttle (
  key_hash         bytea PRIMARY KEY,
  failures         integer NOT NULL,
  last_failure_at  timestamptz(3) NOT NULL,
  -- No attempt from this key is checked before this time (NULL: no wait).
  next_attempt_at  timestamptz(3)
);
