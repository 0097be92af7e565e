package dev.gate.batch.history;

import dev.gate.batch.GatedCall;
import dev.gate.batch.Patience;
import dev.gate.batch.VendorAnswer;
import jakarta.batch.runtime.BatchStatus;
import jakarta.batch.runtime.context.JobContext;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Named;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * One day of one symbol's history from the vendor: {@code GET <vendorUrl>/history/<symbol>/<day>} (the job's
 * {@code vendorUrl} property). Each answer is kept at once ({@link FetchJournal}), so an item read again after a
 * cut is not fetched again. A vendor that cannot be reached fails the chunk (restartable).
 */
@Named("historyFetch")
@Dependent
public class HistoryFetch implements GatedCall<HistoryItem, HistoryResult> {

    @EJB
    FetchJournal journal;

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Override
    public VendorAnswer<HistoryResult> call(HistoryItem item, JobContext job) throws Exception {
        String base = job.getProperties().getProperty("vendorUrl");
        URI uri = URI.create(base.replaceAll("/+$", "") + "/history/"
                + URLEncoder.encode(item.symbol(), StandardCharsets.UTF_8) + "/" + item.day());
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        Duration retryAfter = r.headers().firstValue("Retry-After").filter(v -> v.matches("\\d{1,6}"))
                .map(v -> Duration.ofSeconds(Long.parseLong(v))).orElse(null);
        VendorAnswer<HistoryResult> answer = new VendorAnswer<>(r.statusCode(), retryAfter,
                new HistoryResult(item, r.statusCode(), r.body()));
        if (!answer.slowDown()) {
            // before anything can cut the chunk; a database that does not answer is waited out, not a lost answer
            patience(job).outlast("item " + item + " (its answer kept)", () -> {
                journal.keep(job.getInstanceId(), answer.result());
                return null;
            });
        }
        return answer;
    }

    @Override
    public Optional<HistoryResult> kept(HistoryItem item, JobContext job) throws Exception {
        return journal.kept(job.getInstanceId(), item);
    }

    private static Patience patience(JobContext job) {
        return new Patience(() -> job.getBatchStatus() == BatchStatus.STOPPING, "job " + job.getJobName()
                + " execution " + job.getExecutionId());
    }
}
