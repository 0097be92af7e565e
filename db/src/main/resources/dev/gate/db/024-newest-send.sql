--liquibase formatted sql

--changeset gate:024-newest-send
--comment: retention now keeps each limit's newest send; before, a limit idle past its windows lost it, and the try statement read its slot as stale for ever. Heals those: an idle slot whose newest send is gone counts from the newest send it still has (or none). Idle (no slot moved in 10 minutes): a grant committing meanwhile is not undone.
UPDATE gate_slot s
SET send_seq = coalesce((SELECT max(g.seq) FROM gate_send g WHERE g.limit_name = s.limit_name), 0)
WHERE s.send_seq > 0
  AND s.next_slot_at < now() - interval '10 minutes'
  AND NOT EXISTS (SELECT 1 FROM gate_send g WHERE g.limit_name = s.limit_name AND g.seq = s.send_seq);
--rollback SELECT 1;
