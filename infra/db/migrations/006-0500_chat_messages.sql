-- Agent chat turns (spec 01 POST /api/agent/chat, GET /api/agent/chat/history): kept here rather
-- than read back from the runtime's transcript, so history and CHAT_RATE_LIMIT hold across
-- processes and Lambda workers.

CREATE TABLE chat_messages (
  id uuid PRIMARY KEY,
  session_key text NOT NULL,
  role text NOT NULL CHECK (role IN ('user', 'assistant')),
  content text NOT NULL,
  status text NOT NULL DEFAULT 'sent' CHECK (status IN ('sent', 'failed')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX chat_messages_session ON chat_messages (session_key, created_at DESC);
CREATE INDEX chat_messages_user_recent ON chat_messages (created_at) WHERE role = 'user';
CREATE TRIGGER chat_messages_touch BEFORE UPDATE ON chat_messages FOR EACH ROW EXECUTE FUNCTION touch_updated_at();
