package dev.gate.app;

import dev.gate.engine.AccountWrites;

import dev.gate.api.GatePausedException;
import dev.gate.domain.AccountEntity;
import dev.gate.server.GateDataSource;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.PersistenceException;

import javax.sql.DataSource;
import java.util.Optional;

/**
 * The HTTP accounts (hashes made by the web tier's PBKDF2), for the identity store and the operator endpoint: plain
 * persistence through JPA, but for the start-up accounts that two servers may create at once (explicit SQL).
 */
@Singleton
@DependsOn("Schema")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class Accounts {

    @Resource(lookup = GateDataSource.JNDI)
    DataSource dataSource;

    private AccountWrites writes;

    @PostConstruct
    void wire() {
        writes = new AccountWrites(dataSource); // the applications' pool: no session settings
    }

    @PersistenceContext(unitName = "gate")
    EntityManager em;

    /** The account of that name (the identity store's lookup, on every uncached request). */
    public Optional<Account> find(String name) throws GatePausedException {
        try {
            return Optional.ofNullable(em.find(AccountEntity.class, name)).map(Accounts::account);
        } catch (PersistenceException e) {
            throw new GatePausedException("accounts could not be read: " + e.getMessage());
        }
    }

    /** Every account (the start-up check for passwords that are their account's name), by name. */
    public java.util.List<Account> all() throws GatePausedException {
        try {
            return em.createQuery("SELECT a FROM AccountEntity a ORDER BY a.name", AccountEntity.class)
                    .getResultList().stream().map(Accounts::account).toList();
        } catch (PersistenceException e) {
            throw new GatePausedException("accounts could not be read: " + e.getMessage());
        }
    }

    /** Creates or replaces an account (an operator's PUT); true when created. */
    @TransactionAttribute(TransactionAttributeType.REQUIRED)
    public boolean put(Account account) {
        AccountEntity existing = em.find(AccountEntity.class, account.name());
        if (existing == null) {
            em.persist(new AccountEntity(account.name(), account.passwordHash(), account.roles()));
            return true;
        }
        existing.change(account.passwordHash(), account.roles());
        return false;
    }

    /** Creates the account unless one of that name exists (start-up accounts; two servers may race). */
    public boolean addIfAbsent(Account account) throws GatePausedException {
        return writes.addIfAbsent(account.name(), account.passwordHash(), account.roles());
    }

    /**
     * Replaces the account's password hash with a stronger one of the same password, unless the account changed
     * meanwhile (an operator's PUT wins); true when replaced.
     */
    public boolean replaceHash(String name, String was, String stronger) throws GatePausedException {
        return writes.replaceHash(name, was, stronger);
    }

    @TransactionAttribute(TransactionAttributeType.REQUIRED)
    public boolean delete(String name) {
        AccountEntity existing = em.find(AccountEntity.class, name);
        if (existing == null) {
            return false;
        }
        em.remove(existing);
        return true;
    }

    private static Account account(AccountEntity row) {
        return new Account(row.name(), row.passwordHash(), row.roles());
    }
}
