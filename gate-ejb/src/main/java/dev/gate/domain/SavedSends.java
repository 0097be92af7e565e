package dev.gate.domain;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** How many sends a limit saved because submissions joined a live call of the same dedupe key. */
@Entity
@Table(name = "gate_saved")
public class SavedSends {

    @Id
    @Column(name = "limit_name", length = 64)
    private String limitName;

    @Column(name = "saved_sends", nullable = false)
    private long count;

    protected SavedSends() {
        // for JPA
    }

    public String limitName() {
        return limitName;
    }

    public long count() {
        return count;
    }
}
