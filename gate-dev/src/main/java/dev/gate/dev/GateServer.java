package dev.gate.dev;

import org.wildfly.core.launcher.Launcher;
import org.wildfly.core.launcher.StandaloneCommandBuilder;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The provisioned WildFly with the gate's EAR, as a process of its own: the run command's server and the benchmark's
 * HTTP side. The EAR goes into the deployments folder (provisioning leaves it empty); the environment carries the
 * gate's settings ({@code GATE_DB_URL}, {@code GATE_LIMITS}, ...).
 */
public final class GateServer implements AutoCloseable {

    /** Where the gate answers once deployed. */
    public static final String BASE = "http://localhost:8080/gate";

    private final Process process;
    private final Path deployments;
    private final String base;

    private GateServer(Process process, Path deployments, String base) {
        this.process = process;
        this.deployments = deployments;
        this.base = base;
    }

    /**
     * Starts the server with the EAR; {@code inheritOutput}: its log goes to this process's console (the run
     * command), else to {@code server.log} only (a benchmark).
     */
    public static GateServer start(Path server, Path ear, Map<String, String> env, boolean inheritOutput)
            throws IOException {
        return start(server, List.of(ear), env, inheritOutput);
    }

    /** As above, with more deployments beside the EAR (the demo's WARs); a demo WAR not named is removed. */
    public static GateServer start(Path server, List<Path> deployments, Map<String, String> env,
                                   boolean inheritOutput) throws IOException {
        return start(server, deployments, env, inheritOutput, 0);
    }

    /**
     * As above, every port of the server moved by {@code portOffset} (a second server beside the first, from a copy
     * of the provisioned server's folder): it answers at {@link #base()}.
     */
    public static GateServer start(Path server, List<Path> deployments, Map<String, String> env,
                                   boolean inheritOutput, int portOffset) throws IOException {
        Path folder = deploy(server, deployments);
        StandaloneCommandBuilder command = StandaloneCommandBuilder.of(server).addJavaOptions("-Xms256m", "-Xmx1g");
        if (portOffset != 0) {
            command.addJavaOption("-Djboss.socket.binding.port-offset=" + portOffset);
        }
        Launcher launcher = Launcher.of(command).addEnvironmentVariables(env);
        if (inheritOutput) {
            launcher.inherit();
        } else {
            launcher.redirectOutput(server.resolve("standalone/log/console.log"));
        }
        return new GateServer(launcher.launch(), folder, "http://localhost:" + (8080 + portOffset) + "/gate");
    }

    /** Into the deployments folder, after what an earlier run (or a killed one) left there. */
    private static Path deploy(Path server, List<Path> archives) throws IOException {
        Path deployments = server.resolve("standalone/deployments");
        removePlaced(deployments);
        for (Path archive : archives) {
            Files.copy(archive, deployments.resolve(archive.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
        return deployments;
    }

    /** The archives this class places, with their markers (.deployed, .failed, ...). */
    private static void removePlaced(Path deployments) throws IOException {
        try (DirectoryStream<Path> old = Files.newDirectoryStream(deployments, "{gate.ear,demo-*.war}*")) {
            for (Path p : old) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Waits until the API answers (401 included: deployed); false if the server died or {@code limit} passed. */
    public boolean awaitGate(Duration limit) throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest ping = HttpRequest.newBuilder(URI.create(base + "/api/v1/limits"))
                .timeout(Duration.ofSeconds(5)).build();
        long until = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < until && process.isAlive()) {
            try {
                int status = http.send(ping, HttpResponse.BodyHandlers.discarding()).statusCode();
                if (status == 200 || status == 401) {
                    return true;
                }
            } catch (IOException notYet) {
                // the server is still starting
            }
            Thread.sleep(500);
        }
        return false;
    }

    /** Where this server's gate answers ({@link #BASE} unless its ports were moved). */
    public String base() {
        return base;
    }

    public Process process() {
        return process;
    }

    /**
     * Stops the server (a clean shutdown, forced after 30 s) and takes out what it deployed, so the provisioned
     * server is as provisioning left it (a test run on the same tree deploys its own EAR there).
     */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return; // still running: its deployments stay until the next start clears them
            }
        }
        try {
            removePlaced(deployments);
        } catch (IOException e) {
            System.err.println("could not remove the deployments from " + deployments + ": " + e);
        }
    }
}
