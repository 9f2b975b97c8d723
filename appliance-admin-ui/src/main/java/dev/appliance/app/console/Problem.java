package dev.appliance.app.console;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import java.util.stream.Collectors;
import org.springframework.http.converter.HttpMessageNotReadableException;

/**
 * An admin API error, an RFC 9457 problem ({@code application/problem+json}): {@code type}, {@code title},
 * {@code status}, {@code detail}, plus {@code code} (stable, for programs), {@code message} (the detail again, as the
 * CLI's {@code AdminClient} prints it) and {@code field}, the request field at fault when one was. A controller may
 * give the code and message alone; {@link ProblemAdvice} fills in the rest from the status answered.
 *
 * @param type a URI naming the kind of problem ({@code urn:appliance:problem:<code>})
 * @param title the code, for people scanning a list
 * @param status the HTTP status answered
 * @param detail what went wrong this time (the same as {@code message})
 * @param field the path variable, query parameter or body field that was wrong, when one was
 * @param code what went wrong, for programs
 * @param message what went wrong, for people
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record Problem(String type, String title, Integer status, String detail, String field, String code, String message) {

    Problem(String code, String message) {
        this(null, null, null, null, null, code, message);
    }

    /** This problem with the RFC 9457 members it lacks filled in, for a response with {@code status}. */
    Problem complete(int status) {
        return new Problem(
                type == null ? "urn:appliance:problem:" + code : type,
                title == null ? code : title,
                this.status == null ? Integer.valueOf(status) : this.status,
                detail == null ? message : detail,
                field,
                code,
                message == null ? detail : message);
    }

    /** An RFC 9457 problem, still readable by the CLI through {@code code} and {@code message}. */
    static Problem of(int status, String code, String field, String detail) {
        return new Problem("urn:appliance:problem:" + code, code, status, detail, field, code, detail);
    }

    /**
     * A request body that could not be read: the message names the field and the value when one was wrong, so that
     * the caller learns what to fix rather than getting a bare 400 page.
     */
    static Problem unreadableBody(String code, HttpMessageNotReadableException e) {
        if (e.getCause() instanceof JsonMappingException m && !m.getPath().isEmpty()) {
            String field = fieldOf(m);
            return new Problem(
                    null,
                    null,
                    null,
                    null,
                    field,
                    code,
                    "request body: field '" + field + "'" + valueOf(m) + expected(m));
        }
        return new Problem(code, "request body: not a JSON object of the documented fields");
    }

    /** As {@link #unreadableBody(String, HttpMessageNotReadableException)}, RFC 9457-shaped with the field. */
    static Problem unreadableBody(HttpMessageNotReadableException e) {
        if (e.getCause() instanceof JsonMappingException m && !m.getPath().isEmpty()) {
            String field = fieldOf(m);
            return of(400, "InvalidInput", field, "request body: field '" + field + "'" + valueOf(m) + expected(m));
        }
        return of(400, "InvalidInput", null, "request body: not a JSON object of the documented fields");
    }

    private static String fieldOf(JsonMappingException m) {
        return m.getPath().stream()
                .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                .collect(Collectors.joining("."));
    }

    private static String valueOf(JsonMappingException m) {
        return m instanceof InvalidFormatException f ? " '" + f.getValue() + "'" : "";
    }

    private static String expected(JsonMappingException m) {
        return m instanceof InvalidFormatException f
                ? " (expected " + describe(f.getTargetType()) + ")"
                : " (not a value of the expected type)";
    }

    private static String describe(Class<?> type) {
        if (type == Boolean.class || type == boolean.class) {
            return "true, false or null";
        }
        if (Number.class.isAssignableFrom(type) || type.isPrimitive()) {
            return "a whole number or null";
        }
        return type.getSimpleName();
    }
}
