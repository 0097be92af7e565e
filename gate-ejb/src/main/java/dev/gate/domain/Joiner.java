package dev.gate.domain;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.Instant;

/**
 * A program that joined a live call by its dedupe key instead of adding a send: it may watch the call, and its
 * submission key finds the call again.
 */
@Entity
@Table(name = "gate_call_joiner")
public class Joiner {

    @Id
    @Column(name = "id")
    private long id;

    @Column(name = "call_id", nullable = false)
    private long callId;

    @Column(name = "program", nullable = false, length = 64)
    private String program;

    @Column(name = "joined_at", nullable = false)
    private Instant joinedAt;

    /** Who joined (a program's owner, as a call's): with its submission key, what its retry finds. */
    @Column(name = "owner", length = 128)
    private String owner;

    /** The joining submission's key: its retry after a lost answer finds this call again (never a new one). */
    @Column(name = "submission_key", length = 200)
    private String submissionKey;

    protected Joiner() {
        // for JPA
    }
}
