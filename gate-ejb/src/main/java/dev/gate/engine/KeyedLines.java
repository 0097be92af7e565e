package dev.gate.engine;

import dev.gate.api.CallOptions;
import dev.gate.api.GateException;
import dev.gate.api.KeyedLimitException;
import dev.gate.api.UnknownLimitException;
import dev.gate.api.LineFullException;
import dev.gate.rules.LimitKey;
import dev.gate.rules.LimitName;
import dev.gate.rules.LineSize;
import dev.gate.store.Keys;

import java.util.logging.Logger;

/**
 * Which line a call joins: its limit's own, or, for a keyed limit, its key's (opened on the key's first call). A
 * keyed limit takes only calls that name a key, any other limit none.
 */
final class KeyedLines {

    private static final Logger LOG = Logger.getLogger(KeyedLines.class.getName());

    /** Work on the line a call joins; {@link UnknownLimitException} when that line's limit is gone. */
    interface OnLine<T> {
        T run(String line) throws GateException;
    }

    /** As {@link OnLine}, told the line's parent limit too (a key's under a parent; else null). */
    interface OnLineUnder<T> {
        T run(String line, String parent) throws GateException;
    }

    private final Admission admission;
    private final Keys keys;

    KeyedLines(Admission admission, Keys keys) {
        this.admission = admission;
        this.keys = keys;
    }

    /**
     * Runs {@code work} on the call's line. A key's limit removed as idle between its open and the join (the sweep
     * leaves a key alone for a grace time after its open, so only a join slower than that) is opened again, once.
     */
    <T> T onLine(String limit, CallOptions options, OnLine<T> work) throws GateException {
        return onLine(limit, options, (line, parent) -> work.run(line));
    }

    /** As above, with the line's parent. */
    <T> T onLine(String limit, CallOptions options, OnLineUnder<T> work) throws GateException {
        for (int attempt = 0; ; attempt++) {
            Line line = lineOf(limit, options);
            try {
                return work.run(line.name(), line.parent());
            } catch (UnknownLimitException e) {
                if (options.limitKey() == null) {
                    throw refused(limit, e);
                }
                if (attempt > 0) {
                    throw e;
                }
                LOG.fine(() -> "limit " + limit + ": key '" + options.limitKey() + "' was removed as it joined; "
                        + "opening it again");
            }
        }
    }

    /** A line: its limit's name, and its parent's (null when it has none). */
    private record Line(String name, String parent) {
    }

    private Line lineOf(String limit, CallOptions options) throws GateException {
        String key = options.limitKey();
        if (key == null) {
            if (LimitKey.isKeyName(limit)) { // a key's own line is reached through its template, which opens it
                throw new UnknownLimitException(limit);
            }
            return new Line(limit, null); // a limit without keys has no parent
        }
        if (!LimitName.isValid(limit)) {
            throw new UnknownLimitException(limit);
        }
        if (limit.length() > LimitKey.TEMPLATE_MAX) { // too long for a template: keyed it cannot be
            throw admission.run(() -> keys.keyed(limit)).isEmpty() ? new UnknownLimitException(limit)
                    : notKeyed(limit);
        }
        LimitKey limitKey = new LimitKey(limit, key);
        Keys.Opened opened;
        try {
            opened = admission.run(() -> keys.open(limitKey)).orElseThrow(() -> new UnknownLimitException(limit));
        } catch (Keys.NotKeyed e) {
            throw notKeyed(limit);
        } catch (Keys.KeysFull e) {
            // a place frees when an idle key goes: the idle sweep's grace is the honest estimate
            throw new LineFullException(limit, LineSize.Cap.KEYS.why(), Housekeeper.KEY_GRACE);
        }
        if (opened.created()) {
            LOG.fine(() -> "limit " + limit + ": key '" + key + "' opened, its line is limit " + opened.limitName());
        }
        return new Line(opened.limitName(), opened.parent());
    }

    /** A call without a key that found no line: its limit is keyed (it takes only calls with a key), or unknown. */
    private GateException refused(String limit, UnknownLimitException unknown) throws GateException {
        if (LimitName.isValid(limit) && admission.run(() -> keys.keyed(limit)).orElse(false)) {
            return new KeyedLimitException("limit '" + limit + "' is keyed: each call names its key");
        }
        return unknown;
    }

    private static KeyedLimitException notKeyed(String limit) {
        return new KeyedLimitException("limit '" + limit + "' is not keyed: its calls name no key");
    }
}
