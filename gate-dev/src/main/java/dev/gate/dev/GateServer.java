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

    private GateServer(Process process) {
        this.process = process;
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
        deploy(server, deployments);
        Launcher launcher = Launcher.of(StandaloneCommandBuilder.of(server).addJavaOptions("-Xms256m", "-Xmx1g"))
                .addEnvironmentVariables(env);
        if (inheritOutput) {
            launcher.inherit();
        } else {
            launcher.redirectOutput(server.resolve("standalone/log/console.log"));
        }
        return new GateServer(launcher.launch());
    }

    private static void deploy(Path server, List<Path> archives) throws IOException {
        Path deployments = server.resolve("standalone/deployments");
        try (DirectoryStream<Path> old = Files.newDirectoryStream(deployments, "{gate.ear,demo-*.war}*")) {
            for (Path p : old) {
                Files.delete(p);
            }
        }
        for (Path archive : archives) {
            Files.copy(archive, deployments.resolve(archive.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** Waits until the API answers (401 included: deployed); false if the server died or {@code limit} passed. */
    public boolean awaitGate(Duration limit) throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest ping = HttpRequest.newBuilder(URI.create(BASE + "/api/v1/limits"))
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

    public Process process() {
        return process;
    }

    /** Stops the server (a clean shutdown, forced after 30 s). */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
