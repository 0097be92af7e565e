package dev.gate.domain;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.PrePersist;
import jakarta.persistence.PreUpdate;
import jakarta.persistence.Table;

import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * An HTTP account row, for plain persistence (JPA): looked up by name, created, changed, deleted. Creating the
 * development accounts at start-up, where two servers may race, stays explicit SQL ({@code dev.gate.store.AccountTable}).
 */
@Entity
@Table(name = "gate_account")
public class AccountEntity {

    @Id
    @Column(name = "name", length = 64)
    private String name;

    @Column(name = "password_hash", nullable = false, length = 512)
    private String passwordHash;

    @Column(name = "roles", nullable = false, length = 200)
    private String roles;

    @Column(name = "created_at", nullable = false, updatable = false)
    private Instant createdAt;

    @Column(name = "updated_at", nullable = false)
    private Instant updatedAt;

    protected AccountEntity() {
        // for JPA
    }

    public AccountEntity(String name, String passwordHash, Set<String> roles) {
        this.name = name;
        change(passwordHash, roles);
    }

    public void change(String passwordHash, Set<String> roles) {
        this.passwordHash = passwordHash;
        this.roles = String.join(",", roles);
    }

    public String name() {
        return name;
    }

    public String passwordHash() {
        return passwordHash;
    }

    public Set<String> roles() {
        return new LinkedHashSet<>(Arrays.asList(roles.split(",")));
    }

    @PrePersist
    void created() {
        createdAt = Instant.now();
        updatedAt = createdAt;
    }

    @PreUpdate
    void updated() {
        updatedAt = Instant.now();
    }
}
