package dev.gate.dev;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The one-machine high-availability PostgreSQL of {@code ha/cluster} (one etcd, two PostgreSQL 15 nodes under
 * Patroni), driven from a test: started with synchronous or asynchronous replication, its faults (a switchover, a
 * node killed), stopped and removed when closed. Every step is the script's, so that an operator can do by hand what
 * the test does.
 */
public final class HaCluster implements AutoCloseable {

    private final Path script;
    private final String url;

    private HaCluster(Path script, String url) {
        this.script = script;
        this.url = url;
    }

    /** The script, found from the working directory up (a module's tests run in the module's directory). */
    public static Path script() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("ha/cluster");
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("ha/cluster not found above " + Path.of("").toAbsolutePath());
    }

    /** Whether this machine has what the script needs (Debian's patroni and etcd-server), or root and apt to get it. */
    public static boolean installable() {
        boolean installed = Files.isExecutable(Path.of("/usr/bin/patroni")) && Files.isExecutable(Path.of("/usr/bin/etcd"));
        return installed || ("root".equals(System.getProperty("user.name"))
                && Files.isExecutable(Path.of("/usr/bin/apt-get")));
    }

    /** Starts a fresh cluster, replication synchronous or not; returns once its standby streams. */
    public static HaCluster start(boolean synchronous) {
        Path script = script();
        List<String> args = new ArrayList<>(List.of("start"));
        if (!synchronous) {
            args.add("--async");
        }
        String url = run(script, 180, args).lines().filter(l -> l.startsWith("jdbc:postgresql:"))
                .reduce((first, last) -> last)
                .orElseThrow(() -> new IllegalStateException("ha/cluster start printed no JDBC URL"));
        return new HaCluster(script, url.strip());
    }

    /** The gate's JDBC URL: both nodes, the primary wanted. */
    public String url() {
        return url;
    }

    /** The PostgreSQL port of a node (pg1, pg2): the URL lists them in that order. */
    public int port(String node) {
        String hosts = url.substring("jdbc:postgresql://".length(), url.indexOf('/', "jdbc:postgresql://".length()));
        String host = hosts.split(",")[Integer.parseInt(node.substring(2)) - 1];
        return Integer.parseInt(host.substring(host.lastIndexOf(':') + 1));
    }

    /** The node that leads now (pg1, pg2). */
    public String leader() {
        return run(script, 30, List.of("leader")).strip();
    }

    /** A planned switchover to the other node; returns once the new leader takes writes. */
    public void switchover() {
        run(script, 120, List.of("switchover"));
    }

    /** The node's Patroni and PostgreSQL killed with SIGKILL, as when its machine dies. */
    public void kill(String node) {
        run(script, 30, List.of("kill", node));
    }

    /** Only the node's PostgreSQL killed with SIGKILL; its Patroni lives on and decides (restart or fail over). */
    public void killPostgres(String node) {
        run(script, 30, List.of("kill-postgres", node));
    }

    /** A killed node started again; returns once it streams from the leader as its standby. */
    public void revive(String node) {
        run(script, 130, List.of("revive", node, "120"));
    }

    /** The node that does not lead now. */
    public String standby() {
        return leader().equals("pg1") ? "pg2" : "pg1";
    }

    /** Waits until a leader takes writes; its name. */
    public String awaitLeader(int seconds) {
        return run(script, seconds + 10, List.of("wait-leader", Integer.toString(seconds))).strip();
    }

    /** Waits until the node that does not lead streams from the leader (in sync mode: as its synchronous standby). */
    public void awaitReplica(int seconds) {
        run(script, seconds + 10, List.of("wait-standby", Integer.toString(seconds)));
    }

    /** What {@code patronictl list} shows. */
    public String status() {
        return run(script, 30, List.of("status"));
    }

    @Override
    public void close() {
        run(script, 120, List.of("stop"));
    }

    private static String run(Path script, int timeoutSeconds, List<String> args) {
        List<String> command = new ArrayList<>(List.of(script.toString()));
        command.addAll(args);
        try {
            Path out = Files.createTempFile("gate-ha-", ".out");
            try {
                Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
                if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IllegalStateException(String.join(" ", command) + " did not finish in "
                            + timeoutSeconds + " s: " + Files.readString(out, StandardCharsets.UTF_8));
                }
                String text = Files.readString(out, StandardCharsets.UTF_8);
                if (p.exitValue() != 0) {
                    throw new IllegalStateException(String.join(" ", command) + " failed (" + p.exitValue() + "): "
                            + text);
                }
                return text;
            } finally {
                Files.deleteIfExists(out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + String.join(" ", command), e);
        }
    }
}
