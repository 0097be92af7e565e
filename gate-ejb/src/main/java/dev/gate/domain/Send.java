package dev.gate.domain;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.Instant;

/** One grant in the send log: what the vendor counts. Written by the grant transaction; read and pruned here. */
@Entity
@Table(name = "gate_send")
public class Send {

    @Id
    @Column(name = "id")
    private long id;

    @Column(name = "limit_name", nullable = false, length = 64)
    private String limitName;

    @Column(name = "call_id", nullable = false)
    private long callId;

    @Column(name = "sent_at", nullable = false)
    private Instant sentAt;

    @Column(name = "slot_at")
    private Instant slotAt;

    @Column(name = "seq", nullable = false)
    private long seq;

    protected Send() {
        // for JPA
    }

    public String limitName() {
        return limitName;
    }

    public Instant sentAt() {
        return sentAt;
    }
}
