package dev.gate.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A steady caller across the minute marks of its remembered sign-in, against a running gate: one request every
 * 100 ms ({@code GET /limits}, Basic credentials, keep-alive) for {@code seconds} (default 200: three minute marks
 * after the first sign-in). A server that derived the password again when the remembered sign-in ran out would show
 * one slow request (PBKDF2, 150 ms and more) a minute; the gate confirms it off the request path instead. Prints
 * each minute's slowest request, the percentiles, and how many took longer than 50 ms (the target: none, on an idle
 * box; the first 10 s, the first sign-in and the server's warm-up, are printed apart). Any answer but 200 counts as
 * an error.
 *
 * <p>Arguments: base URL (e.g. {@code http://localhost:8080/gate/api/v1}), caller account, its password, seconds.
 */
public final class SignInMinutes {

    static final double SLOW_MS = 50;
    static final int WARM_UP_SECONDS = 10;

    private SignInMinutes() {
    }

    public static void main(String[] args) throws Exception {
        URI base = URI.create(args[0].endsWith("/") ? args[0] : args[0] + "/");
        int seconds = args.length > 3 ? Integer.parseInt(args[3]) : 200;
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        HttpPath.Client caller = new HttpPath.Client(http, base, HttpPath.basic(args[1] + ":" + args[2]));
        List<Double> all = new ArrayList<>();
        int minutes = (seconds + 59) / 60;
        double[] slowest = new double[minutes];
        double[] slowestAt = new double[minutes];
        long errors = 0;
        double warmUpSlowest = 0;
        long t0 = System.nanoTime();
        long until = t0 + Duration.ofSeconds(seconds).toNanos();
        for (long next = t0; next < until; next += Duration.ofMillis(100).toNanos()) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
            long t = System.nanoTime();
            HttpResponse<String> answer = caller.send("GET", "limits", null);
            double ms = (System.nanoTime() - t) / 1e6;
            if (answer.statusCode() != 200) {
                errors++;
                continue;
            }
            double at = (t - t0) / 1e9;
            if (at < WARM_UP_SECONDS) { // the first sign-in derives the password, and the server's paths warm
                warmUpSlowest = Math.max(warmUpSlowest, ms);
                continue;
            }
            all.add(ms);
            int minute = Math.min(minutes - 1, (int) (at / 60));
            if (ms > slowest[minute]) {
                slowest[minute] = ms;
                slowestAt[minute] = at;
            }
        }
        System.out.printf("first %d s (the first sign-in, warm-up; not counted): slowest %.1f ms%n", WARM_UP_SECONDS,
                warmUpSlowest);
        for (int m = 0; m < minutes; m++) {
            System.out.printf("minute %d: slowest %.1f ms at %.1f s%n", m + 1, slowest[m], slowestAt[m]);
        }
        Percentiles p = new Percentiles(all);
        long slow = all.stream().filter(ms -> ms > SLOW_MS).count();
        System.out.printf("%s; %d slower than %.0f ms; %d errors; %s%n", p.summary(), slow, SLOW_MS, errors,
                slow == 0 && errors == 0 ? "target met" : "target missed");
    }
}
