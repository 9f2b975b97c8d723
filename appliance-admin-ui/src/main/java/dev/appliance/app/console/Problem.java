package dev.appliance.app.console;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import java.util.stream.Collectors;
import org.springframework.http.converter.HttpMessageNotReadableException;

/**
 * An admin API error as JSON: {@code {"code": ..., "message": ...}}, as the CLI ({@code AdminClient}) prints it.
 *
 * @param code what went wrong, for programs
 * @param message what went wrong, for people
 */
record Problem(String code, String message) {

    /**
     * A request body that could not be read: the message names the field and the value when one was wrong, so that
     * the caller learns what to fix rather than getting a bare 400 page.
     */
    static Problem unreadableBody(String code, HttpMessageNotReadableException e) {
        if (e.getCause() instanceof JsonMappingException m && !m.getPath().isEmpty()) {
            String field = m.getPath().stream()
                    .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                    .collect(Collectors.joining("."));
            String value = m instanceof InvalidFormatException f ? " '" + f.getValue() + "'" : "";
            String expected = m instanceof InvalidFormatException f
                    ? " (expected " + describe(f.getTargetType()) + ")"
                    : " (not a value of the expected type)";
            return new Problem(code, "request body: field '" + field + "'" + value + expected);
        }
        return new Problem(code, "request body: not a JSON object of the documented fields");
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
