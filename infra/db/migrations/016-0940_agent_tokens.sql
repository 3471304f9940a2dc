-- Agents' own bearer tokens. Only the SHA-256 digest of a token is stored (the token is
-- shown once, at creation). Not carried by snapshots: a restore never brings back a credential,
-- nor revives one that was revoked since.

CREATE TABLE agent_tokens (
  id uuid PRIMARY KEY,
  agent_id text NOT NULL CHECK (agent_id <> ''),
  label text,
  digest text NOT NULL UNIQUE CHECK (digest ~ '^[0-9a-f]{64}$'),
  scopes text[] NOT NULL DEFAULT '{agent}' CHECK (scopes <@ ARRAY['agent', 'read']::text[] AND cardinality(scopes) > 0),
  expires_at timestamptz,
  revoked_at timestamptz,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agent_tokens_agent ON agent_tokens (agent_id, created_at);
CREATE TRIGGER agent_tokens_touch BEFORE UPDATE ON agent_tokens FOR EACH ROW EXECUTE FUNCTION touch_updated_at();
