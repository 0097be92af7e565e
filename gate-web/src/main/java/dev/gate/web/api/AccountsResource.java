package dev.gate.web.api;

import dev.gate.api.GateException;
import dev.gate.app.Accounts;
import dev.gate.app.Names;
import dev.gate.app.Account;
import dev.gate.web.security.AccountStore;
import dev.gate.web.security.Passwords;
import dev.gate.web.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;

import java.io.InputStream;
import java.net.URI;
import java.util.LinkedHashSet;
import java.util.Set;

/** {@code /gate/api/v1/accounts/{name}} (operator): the production way to manage who may call. */
@Path("/accounts/{name}")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed("operator")
public class AccountsResource {

    private static final Set<String> FIELDS = Set.of("password", "roles");

    @EJB
    Accounts accounts;

    @Inject
    Passwords passwords;

    @Inject
    AccountStore store;

    /** Creates (201) or replaces (204) an account: {@code {"password": "...", "roles": ["caller"]}}. */
    @Operation(summary = "Create (201) or replace (204) an account: {password, roles} (operator)")
    @PUT
    public Response put(@PathParam("name") String name, InputStream body) throws GateException {
        if (!Names.isValid(name)) {
            throw ProblemException.badRequest("name", "must be 1-64 of [A-Za-z0-9._-], was '" + name + "'");
        }
        JsonObject fields = Bodies.object(body, FIELDS);
        String password = Bodies.requiredString(fields, "password");
        if (password.length() < 8 || password.length() > 200) {
            throw ProblemException.badRequest("password", "must be 8 to 200 characters");
        }
        Set<String> roles = roles(fields.get("roles"));
        boolean created = accounts.put(new Account(name, passwords.hash(password), roles));
        store.forget(name);
        return created ? Response.created(URI.create("accounts/" + name)).build()
                : Response.noContent().build();
    }

    @Operation(summary = "Delete an account (operator)")
    @DELETE
    public Response delete(@PathParam("name") String name) throws GateException {
        if (!accounts.delete(name)) {
            throw ProblemException.notFound("account: no account named '" + name + "'");
        }
        store.forget(name);
        return Response.noContent().build();
    }

    private static Set<String> roles(JsonValue value) {
        if (!(value instanceof JsonArray array) || array.isEmpty()) {
            throw ProblemException.badRequest("roles", "must be a non-empty array of " + Roles.ALL);
        }
        Set<String> roles = new LinkedHashSet<>();
        for (JsonValue v : array) {
            if (!(v instanceof JsonString s) || !Roles.ALL.contains(s.getString())) {
                throw ProblemException.badRequest("roles", "each must be one of " + Roles.ALL + ", was " + v);
            }
            roles.add(s.getString());
        }
        return roles;
    }
}
