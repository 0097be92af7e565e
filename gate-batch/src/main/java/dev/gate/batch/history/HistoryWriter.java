package dev.gate.batch.history;

import dev.gate.batch.Patience;
import jakarta.batch.api.chunk.AbstractItemWriter;
import jakarta.batch.runtime.BatchStatus;
import jakarta.batch.runtime.context.JobContext;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;

import java.util.List;

/**
 * Writes a chunk's results in one short transaction of their own ({@link FetchJournal#write}), before the chunk's
 * checkpoint; a database that does not answer is waited out. Written twice (a result committed whose checkpoint was
 * not: the chunk is read again after a restart), nothing changes: each item is written once, and its kept answer
 * spares it a second fetch.
 */
@Named("historyWriter")
@Dependent
public class HistoryWriter extends AbstractItemWriter {

    @Inject
    JobContext job;

    @EJB
    FetchJournal journal;

    @Override
    public void writeItems(List<Object> items) throws Exception {
        List<HistoryResult> results = items.stream().map(HistoryResult.class::cast).toList();
        new Patience(() -> job.getBatchStatus() == BatchStatus.STOPPING, "job " + job.getJobName() + " execution "
                + job.getExecutionId()).outlast(results.size() + " results", () -> {
                    journal.write(job.getInstanceId(), results);
                    return null;
                });
    }
}
