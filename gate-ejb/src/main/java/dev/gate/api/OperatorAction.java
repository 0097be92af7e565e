package dev.gate.api;

import java.io.Serializable;
import java.time.Instant;

/**
 * Something an operator did to the line, and who: a limit paused or resumed, created, changed or removed, a waiting
 * call cancelled, a program's waiting calls drained. A bean with getters, for JSF EL and JSON alike.
 */
public final class OperatorAction implements Serializable {

    private static final long serialVersionUID = 1L;

    private final long id;
    private final Instant at;
    private final String actor;
    private final String action;
    private final String target;
    private final String detail;

    public OperatorAction(long id, Instant at, String actor, String action, String target, String detail) {
        this.id = id;
        this.at = at;
        this.actor = actor;
        this.action = action;
        this.target = target;
        this.detail = detail;
    }

    public long getId() {
        return id;
    }

    /** When, on the database's clock. */
    public Instant getAt() {
        return at;
    }

    /** Who: the account that did it (over HTTP, the status page) or the remote caller's principal. */
    public String getActor() {
        return actor;
    }

    /** pause, resume, create-limit, change-limit, remove-limit, cancel-call, drain. */
    public String getAction() {
        return action;
    }

    /** What it was done to: "limit vendor-a", "call 42", "program worker". */
    public String getTarget() {
        return target;
    }

    /** The particulars ("for PT5M, until ...", "3 waiting calls cancelled"); may be null. */
    public String getDetail() {
        return detail;
    }
}
