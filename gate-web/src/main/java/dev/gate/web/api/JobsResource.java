package dev.gate.web.api;

import dev.gate.app.Backfills;
import dev.gate.app.JobRefusedException;
import dev.gate.app.JobView;
import dev.gate.app.Progress;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import org.eclipse.microprofile.openapi.annotations.Operation;

import java.io.InputStream;
import java.net.URI;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@code /gate/api/v1/jobs}: the backfill jobs: start, stop, restart from the last checkpoint, and their progress. */
@Path("/jobs")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class JobsResource {

    @EJB
    Backfills jobs;

    @Context
    SecurityContext security;

    @Operation(summary = "The backfill jobs, newest first: each instance's latest execution with its progress")
    @GET
    @RolesAllowed({"operator", "viewer"})
    public Response all() {
        JsonArrayBuilder all = JsonBuilders.array();
        jobs.list().forEach(j -> all.add(view(j)));
        return Response.ok(JsonBuilders.object().add("jobs", all).build().toString()).build();
    }

    @Operation(summary = "One execution, with its job instance's progress (404 when there is none)")
    @GET
    @Path("{id: [0-9]+}")
    @RolesAllowed({"operator", "viewer"})
    public Response one(@PathParam("id") String id) {
        long execution = Bodies.id(id);
        return jobs.one(execution).map(j -> Response.ok(view(j).toString()).build())
                .orElseThrow(() -> ProblemException.notFound("job: no execution " + execution));
    }

    @Operation(summary = "Start backfill-history (operator): body {limit, symbols, from, to, vendorUrl[, class, checkpointEvery, maxWait, retries]}; 201")
    @POST
    @Path(Backfills.JOB)
    @RolesAllowed("operator")
    public Response start(InputStream body) throws JobRefusedException {
        JsonObject fields = Bodies.object(body, jobs.parameterNames());
        Map<String, String> parameters = new LinkedHashMap<>();
        for (Map.Entry<String, JsonValue> e : fields.entrySet()) {
            parameters.put(e.getKey(), text(e.getKey(), e.getValue()));
        }
        return created(jobs.start(parameters, actor()));
    }

    @Operation(summary = "Stop a running execution (operator): it ends STOPPED after the chunk in hand; answers it")
    @POST
    @Path("{id: [0-9]+}/stop")
    @RolesAllowed("operator")
    public Response stop(@PathParam("id") String id) throws JobRefusedException {
        return Response.ok(view(jobs.stop(Bodies.id(id), actor())).toString()).build();
    }

    @Operation(summary = "Restart a stopped or failed execution from its last checkpoint (operator): 201, the new execution")
    @POST
    @Path("{id: [0-9]+}/restart")
    @RolesAllowed("operator")
    public Response restart(@PathParam("id") String id) throws JobRefusedException {
        return created(jobs.restart(Bodies.id(id), actor()));
    }

    private static Response created(JobView j) {
        return Response.created(URI.create("jobs/" + j.executionId())).entity(view(j).toString()).build();
    }

    private String actor() {
        return security.getUserPrincipal().getName();
    }

    private static String text(String field, JsonValue v) {
        if (v instanceof JsonString s) {
            return s.getString();
        }
        if (v instanceof JsonNumber n && n.isIntegral()) {
            return n.bigIntegerValue().toString();
        }
        throw ProblemException.badRequest(field, "must be a string or a whole number");
    }

    static JsonObject view(JobView j) {
        JsonObjectBuilder parameters = JsonBuilders.object();
        j.parameters().forEach(parameters::add);
        Progress p = j.progress();
        JsonObjectBuilder progress = JsonBuilders.object().add("done", p.done()).add("total", p.total())
                .add("percent", p.percent()).add("perMinute", Math.round(p.perMinute() * 10) / 10.0);
        if (p.left() == null) {
            progress.addNull("secondsLeft");
        } else {
            progress.add("secondsLeft", p.left().toSeconds());
        }
        JsonObjectBuilder b = JsonBuilders.object().add("executionId", j.executionId())
                .add("instanceId", j.instanceId()).add("job", j.job()).add("status", j.status())
                .add("running", j.running());
        if (j.exitStatus() == null) {
            b.addNull("exitStatus");
        } else {
            b.add("exitStatus", j.exitStatus());
        }
        time(b, "createdAt", j.createdAt());
        time(b, "startedAt", j.startedAt());
        time(b, "endedAt", j.endedAt());
        return b.add("parameters", parameters).add("progress", progress).build();
    }

    private static void time(JsonObjectBuilder b, String field, Instant t) {
        if (t == null) {
            b.addNull(field);
        } else {
            b.add(field, t.toString());
        }
    }
}
