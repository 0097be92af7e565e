package dev.gate.ejb;

import dev.gate.store.Calls;
import dev.gate.store.Granter;
import dev.gate.store.Leases;
import dev.gate.store.LimitTable;
import dev.gate.store.LineView;
import dev.gate.store.Tx;
import dev.gate.wait.Waiters;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;

import javax.sql.DataSource;
import java.net.InetAddress;
import java.util.UUID;

/**
 * This gate instance's view of the shared line: the plain store parts wired to the server's datasource, the
 * in-memory waiters, and the instance's name (the owner of the calls its callers make).
 */
@Singleton
@DependsOn("Schema")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN) // every part is thread-safe; no container lock needed
public class Line {

    @Resource(lookup = GateDataSource.JNDI)
    DataSource dataSource;

    private String owner;
    private Calls calls;
    private Granter granter;
    private Leases leases;
    private LineView view;
    private LimitTable limitTable;
    private final Waiters waiters = new Waiters();

    @PostConstruct
    void wire() {
        Tx tx = new Tx(dataSource);
        calls = new Calls(tx);
        granter = new Granter(tx);
        leases = new Leases(tx);
        view = new LineView(tx);
        limitTable = new LimitTable(tx);
        owner = instanceName();
    }

    private static String instanceName() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            host = "unknown-host";
        }
        String name = host + "/" + ProcessHandle.current().pid() + "/" + UUID.randomUUID().toString().substring(0, 8);
        return name.length() <= 128 ? name : name.substring(name.length() - 128);
    }

    public String owner() {
        return owner;
    }

    public Calls calls() {
        return calls;
    }

    public Granter granter() {
        return granter;
    }

    public Leases leases() {
        return leases;
    }

    public LineView view() {
        return view;
    }

    public LimitTable limitTable() {
        return limitTable;
    }

    public Waiters waiters() {
        return waiters;
    }
}
