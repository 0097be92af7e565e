--liquibase formatted sql

--changeset gate:040-try-group splitStatements:false
--comment: tries of one limit that meet, decided in one call (FreeSlot.together): the slot and the rules read once, each member decided in turn on what the ones before it sent (the try's own decision, FreeSlot.decide, member by member), the sends of the whole group written in one insert and the slot row updated once. Before it, a group ran the whole try statement once per member (0.72 ms a member, most of it the statement's size, the slot's update and the send's insert). Runs only under the group's lock (gate.slot marks it, as for a try); each query inside takes its own snapshot, so it counts every send committed before the lock. The calls-ahead count's liveness test is InstanceLock.OWNER_ALIVE (GrantDecisionTest holds the two equal).
CREATE FUNCTION gate_try_group(lim varchar, classes int[], costs int[], programs varchar[], owners varchar[],
                               leases bigint[], keys varchar[], consumes boolean[])
    RETURNS TABLE (marked boolean, now timestamptz, due timestamptz, gap_us bigint, ahead bigint, id bigint,
                   enqueued_at timestamptz, granted_at timestamptz, prior_id bigint, prior_here boolean,
                   prior_class smallint, prior_enqueued_at timestamptz, prior_granted_at timestamptz)
    LANGUAGE plpgsql VOLATILE
    -- its queries' plans made once per session, generically: left to the default, each member's lookups were planned
    -- afresh while PostgreSQL weighed custom plans (pgbench, a group of 16: 1.6-1.8 ms against 1.25-1.35)
    SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    n int := coalesce(array_length(classes, 1), 0);
    is_marked boolean := coalesce(current_setting('gate.slot', true), '') = lim;
    decides boolean := false; -- marked, and a limit a group decides
    k record;         -- the slot row and its limit, read once the lock is held
    t_now timestamptz;
    seq0 bigint;      -- the last send's number as the lock found it
    seq bigint;       -- and after the members granted so far
    next_slot timestamptz;
    last_sent timestamptz;
    r_calls int[];
    r_window bigint[];
    r_zone varchar[];
    r_at time[];
    r_margin numeric[];
    nr int := 0;
    gap bigint;       -- the beat's gap in microseconds
    turn timestamptz; -- the block's turn after a send now (null: no rule on fixed blocks)
    ahead_of bigint[] := ARRAY[NULL, NULL, NULL, NULL, NULL]::bigint[]; -- by class rank, counted once each
    i int;
    j int;
    u int;
    c int;
    unit bigint;
    nth timestamptz;
    cap timestamptz;
    d timestamptz;
    a bigint;
    p record;
    cid bigint;
    enq timestamptz;
    gr timestamptz;
    s_call bigint[] := '{}';
    s_slot timestamptz[] := '{}';
    s_seq bigint[] := '{}';
    s_program varchar[] := '{}';
    s_owner varchar[] := '{}';
    s_class smallint[] := '{}';
BEGIN
    IF is_marked THEN
        SELECT s.next_slot_at, s.paused_until, s.send_seq, s.vendor_after_unit, s.vendor_remaining, s.vendor_reset_at,
               l.calls, l.window_ms, l.min_interval_ms, l.receipt_margin_ms, l.burst, l.adaptive, s.adaptive_calls,
               s.adaptive_cut_at, l.aging_after_ms, l.aging_up_to, l.aligned_zone, l.aligned_at
        INTO k
        FROM gate_slot s JOIN gate_limit l ON l.name = s.limit_name
        WHERE s.limit_name = lim AND NOT l.keyed AND l.parent_name IS NULL;
        decides := FOUND; -- not a key's limit nor one under a parent: no group decides those
    END IF;
    IF decides THEN
        t_now := clock_timestamp();
        seq0 := k.send_seq;
        seq := seq0;
        next_slot := k.next_slot_at;
        last_sent := (SELECT g.sent_at FROM gate_send g WHERE g.limit_name = lim AND g.seq = seq0);
        -- each rule: the limit's own (at its adaptive rate), then its more rules; the window widened by the margin
        SELECT array_agg(rr.calls ORDER BY rr.o), array_agg(rr.window_ms ORDER BY rr.o),
               array_agg(rr.aligned_zone ORDER BY rr.o), array_agg(rr.aligned_at ORDER BY rr.o),
               array_agg(coalesce(k.receipt_margin_ms::numeric, least(rr.window_ms / 200.0, 100)) ORDER BY rr.o)
        INTO r_calls, r_window, r_zone, r_at, r_margin
        FROM (
            SELECT 0 AS o,
                   CASE WHEN k.adaptive AND k.adaptive_calls IS NOT NULL
                        THEN least(k.calls, k.adaptive_calls + greatest(1, (k.calls * 2 + 50) / 100)
                            * (greatest(0, floor(extract(epoch FROM t_now - k.adaptive_cut_at) * 1000 / k.window_ms))::bigint / 10))::int
                        ELSE k.calls END AS calls, k.window_ms::bigint AS window_ms, k.aligned_zone, k.aligned_at
            UNION ALL
            SELECT 1, x.calls, x.window_ms, x.aligned_zone, x.aligned_at FROM gate_limit_rule x WHERE x.limit_name = lim) rr;
        nr := array_length(r_calls, 1);
        gap := 1;
        FOR j IN 1..nr LOOP
            gap := greatest(gap, ceil((r_window[j] + CASE WHEN r_zone[j] IS NULL THEN r_margin[j] ELSE 0 END)
                                      * 1000 / r_calls[j])::bigint);
            IF r_zone[j] IS NOT NULL THEN
                turn := least(turn, gate_block_end(t_now + r_margin[j] * interval '1 millisecond', r_zone[j], r_at[j],
                                                   r_window[j]));
            END IF;
        END LOOP;
        gap := greatest(gap, k.min_interval_ms * 1000);
    END IF;
    FOR i IN 1..n LOOP
        marked := is_marked;
        now := NULL; due := NULL; gap_us := NULL; ahead := NULL; id := NULL; enqueued_at := NULL; granted_at := NULL;
        prior_id := NULL; prior_here := NULL; prior_class := NULL; prior_enqueued_at := NULL; prior_granted_at := NULL;
        -- a key used before: answered as it is (a try sent again), nothing decided
        SELECT x.id, x.limit_name, x.call_class, x.enqueued_at, x.granted_at INTO p
        FROM gate_call x WHERE x.owner = owners[i] AND x.submission_key = keys[i];
        IF FOUND THEN
            prior_id := p.id; prior_here := p.limit_name = lim; prior_class := p.call_class;
            prior_enqueued_at := p.enqueued_at; prior_granted_at := p.granted_at;
            RETURN NEXT;
            CONTINUE;
        END IF;
        IF NOT decides THEN
            RETURN NEXT;
            CONTINUE;
        END IF;
        c := costs[i];
        -- the live waiting calls of its class or a higher one (a call the starvation guard lifted as its guard's class)
        a := ahead_of[classes[i] + 1];
        IF a IS NULL THEN
            SELECT count(*) INTO a FROM (
                SELECT 1 FROM gate_call w
                WHERE w.limit_name = lim AND w.state = 'WAITING'
                  AND (w.call_class <= classes[i] OR (k.aging_up_to <= classes[i]
                       AND w.enqueued_at < t_now - k.aging_after_ms * interval '1 millisecond'))
                  AND w.lease_expires_at > t_now
                  AND (w.owner LIKE 'program:%' OR NOT pg_try_advisory_xact_lock_shared(1734440037, hashtext(w.owner)))
                LIMIT 1000) x;
            ahead_of[classes[i] + 1] := a;
        END IF;
        -- when a send is due: the beat (or a vendor's new block at once), each rule's room for its units, the spacing
        -- after the last send, the cool-down, the vendor's count
        d := next_slot;
        cap := NULL;
        FOR j IN 1..nr LOOP
            IF r_zone[j] IS NOT NULL AND last_sent IS NOT NULL THEN
                d := least(d, gate_block_end(last_sent + r_margin[j] * interval '1 millisecond', r_zone[j], r_at[j],
                                             r_window[j]));
            END IF;
            unit := seq - r_calls[j] + least(c, r_calls[j]);
            nth := NULL;
            IF unit > seq0 THEN
                nth := t_now; -- a unit this group sent
            ELSIF unit >= 1 THEN
                nth := (SELECT g.sent_at FROM gate_send g WHERE g.limit_name = lim AND g.seq >= unit
                        ORDER BY g.seq LIMIT 1);
                IF nth IS NULL AND seq > seq0 THEN
                    nth := t_now; -- pruned up to this group's own
                END IF;
            END IF;
            IF nth IS NOT NULL THEN
                cap := greatest(cap, CASE WHEN r_zone[j] IS NULL
                                          THEN nth + (r_window[j] + r_margin[j]) * interval '1 millisecond'
                                          ELSE gate_block_end(nth + r_margin[j] * interval '1 millisecond', r_zone[j],
                                                              r_at[j], r_window[j]) END);
            END IF;
        END LOOP;
        d := greatest(d, cap,
                      CASE WHEN k.min_interval_ms > 0 THEN last_sent + k.min_interval_ms * interval '1 millisecond' END,
                      k.paused_until,
                      CASE WHEN k.vendor_reset_at > t_now
                            AND greatest(0, seq - k.vendor_after_unit) + c > k.vendor_remaining
                           THEN k.vendor_reset_at END);
        now := t_now; due := d; gap_us := gap; ahead := a;
        IF t_now >= d AND a = 0 THEN
            IF keys[i] IS NOT NULL THEN
                INSERT INTO gate_call (limit_name, call_class, program, owner, state, enqueued_at, granted_at,
                                       lease_ms, lease_expires_at, submission_key, done_at, cost)
                VALUES (lim, classes[i], programs[i], owners[i], CASE WHEN consumes[i] THEN 'DONE' ELSE 'GRANTED' END,
                        t_now, t_now, leases[i], t_now + leases[i] * interval '1 millisecond', keys[i],
                        CASE WHEN consumes[i] THEN t_now END, c)
                ON CONFLICT DO NOTHING
                RETURNING gate_call.id, gate_call.enqueued_at, gate_call.granted_at INTO cid, enq, gr;
                IF NOT FOUND THEN -- the key came in meanwhile (sent twice at once): nothing taken
                    RETURN NEXT;
                    CONTINUE;
                END IF;
            ELSE
                cid := nextval('gate_call_id_seq'); enq := t_now; gr := t_now;
            END IF;
            FOR u IN 1..c LOOP
                s_call := s_call || cid;
                s_slot := s_slot || d;
                s_seq := s_seq || (seq + u);
                s_program := s_program || CASE WHEN keys[i] IS NULL THEN programs[i] END;
                s_owner := s_owner || CASE WHEN keys[i] IS NULL THEN owners[i] END;
                s_class := s_class || CASE WHEN keys[i] IS NULL THEN classes[i]::smallint END;
            END LOOP;
            next_slot := least(CASE WHEN t_now - d <= gap * interval '1 microsecond' THEN d
                                    ELSE greatest(d, t_now - (k.burst - 1) * gap * interval '1 microsecond')
                               END + c * gap * interval '1 microsecond', turn);
            seq := seq + c;
            last_sent := t_now;
            id := cid; enqueued_at := enq; granted_at := gr;
        END IF;
        RETURN NEXT;
    END LOOP;
    IF decides AND seq > seq0 THEN
        INSERT INTO gate_send (limit_name, call_id, sent_at, slot_at, seq, program, owner, call_class)
        SELECT lim, x.call_id, t_now, x.slot_at, x.seq, x.program, x.owner, x.call_class
        FROM unnest(s_call, s_slot, s_seq, s_program, s_owner, s_class)
             AS x (call_id, slot_at, seq, program, owner, call_class);
        UPDATE gate_slot SET send_seq = seq, next_slot_at = next_slot WHERE limit_name = lim;
    END IF;
END
$$;
--rollback DROP FUNCTION gate_try_group(varchar, int[], int[], varchar[], varchar[], bigint[], varchar[], boolean[]);
