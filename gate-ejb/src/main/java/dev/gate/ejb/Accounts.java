package dev.gate.ejb;

import dev.gate.client.GatePausedException;
import dev.gate.store.Account;
import dev.gate.store.AccountTable;
import dev.gate.store.Tx;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;

import javax.sql.DataSource;
import java.util.Optional;

/** The HTTP accounts (hashes made by the web tier's PBKDF2), for the identity store and the operator endpoint. */
@Singleton
@DependsOn("Schema")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class Accounts {

    @Resource(lookup = GateDataSource.JNDI)
    DataSource dataSource;

    private AccountTable table;

    @PostConstruct
    void wire() {
        table = new AccountTable(new Tx(dataSource));
    }

    public Optional<Account> find(String name) throws GatePausedException {
        return table.find(name);
    }

    public boolean put(Account account) throws GatePausedException {
        return table.put(account);
    }

    public boolean addIfAbsent(Account account) throws GatePausedException {
        return table.addIfAbsent(account);
    }

    public boolean delete(String name) throws GatePausedException {
        return table.delete(name);
    }
}
