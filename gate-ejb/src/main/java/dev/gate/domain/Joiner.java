package dev.gate.domain;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.Instant;

/** A program that joined a live call by its dedupe key instead of adding a send: it may watch the call. */
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

    protected Joiner() {
        // for JPA
    }
}
