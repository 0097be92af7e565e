package dev.gate.domain;

import dev.gate.api.CallClass;
import dev.gate.api.CallState;
import jakarta.persistence.Column;
import jakarta.persistence.Convert;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;

import java.time.Instant;

/**
 * A call's place in the line and its life (WAITING, then GRANTED and DONE, or CANCELLED, EXPIRED, ABANDONED). Joined,
 * granted, renewed and ended by explicit SQL (their locking matters); read here.
 */
@Entity
@Table(name = "gate_call")
@NamedQuery(name = Call.VIEW, query = Call.VIEW_SELECT + " WHERE c.id = :id")
@NamedQuery(name = Call.VIEW_OWNED, query = Call.VIEW_SELECT + " WHERE c.id = :id AND c.owner = :owner")
@NamedQuery(name = Call.NOT_WAITING, query = Call.VIEW_SELECT
        + " WHERE c.id IN :ids AND c.state <> dev.gate.api.CallState.WAITING")
@NamedQuery(name = Call.WAITING_BY_CLASS, query = """
        SELECT c.limitName, c.callClass, count(c), min(c.enqueuedAt) FROM Call c
        WHERE c.state = dev.gate.api.CallState.WAITING GROUP BY c.limitName, c.callClass""")
public class Call {

    // A call as its program and the poll see it: the entity, and how many joined it by its dedupe key.
    static final String VIEW_SELECT = "SELECT c, (SELECT count(j) FROM Joiner j WHERE j.callId = c.id) FROM Call c";

    /** One call with its joiners' count (parameter {@code id}). */
    public static final String VIEW = "Call.view";
    /** As {@link #VIEW}, only if {@code owner} owns it. */
    public static final String VIEW_OWNED = "Call.viewOwned";
    /** Of the calls {@code ids}, those that are no longer WAITING, with their joiners' count. */
    public static final String NOT_WAITING = "Call.notWaiting";
    /** Per limit and class: how many calls wait and since when the oldest (WAITING a literal: the partial index). */
    public static final String WAITING_BY_CLASS = "Call.waitingByClass";

    @Id
    @Column(name = "id")
    private long id;

    @Column(name = "limit_name", nullable = false, length = 64)
    private String limitName;

    @Convert(converter = CallClassRank.class)
    @Column(name = "call_class", nullable = false)
    private CallClass callClass;

    @Column(name = "program", nullable = false, length = 64)
    private String program;

    @Column(name = "owner", nullable = false, length = 128)
    private String owner;

    @Enumerated(EnumType.STRING)
    @Column(name = "state", nullable = false, length = 10)
    private CallState state;

    @Column(name = "enqueued_at", nullable = false)
    private Instant enqueuedAt;

    @Column(name = "lease_ms", nullable = false)
    private int leaseMs;

    @Column(name = "lease_expires_at", nullable = false)
    private Instant leaseExpiresAt;

    @Column(name = "granted_at")
    private Instant grantedAt;

    @Column(name = "done_at")
    private Instant doneAt;

    @Column(name = "outcome_status")
    private Integer outcomeStatus;

    @Column(name = "outcome_retry_after_s")
    private Integer outcomeRetryAfterSeconds;

    @Column(name = "deadline_at")
    private Instant deadlineAt;

    @Column(name = "concurrency_key", length = 200)
    private String concurrencyKey;

    @Column(name = "dedupe_key", length = 200)
    private String dedupeKey;

    /** Units of the quota the call takes (one send row each): 1, or more for a call the vendor counts as several. */
    @Column(name = "cost", nullable = false)
    private int cost;

    protected Call() {
        // for JPA
    }

    public long id() {
        return id;
    }

    public String limitName() {
        return limitName;
    }

    public CallClass callClass() {
        return callClass;
    }

    public String program() {
        return program;
    }

    public String owner() {
        return owner;
    }

    public CallState state() {
        return state;
    }

    public Instant enqueuedAt() {
        return enqueuedAt;
    }

    public Instant leaseExpiresAt() {
        return leaseExpiresAt;
    }

    public Instant grantedAt() {
        return grantedAt;
    }

    public Integer outcomeStatus() {
        return outcomeStatus;
    }

    public Integer outcomeRetryAfterSeconds() {
        return outcomeRetryAfterSeconds;
    }

    public int cost() {
        return cost;
    }
}
