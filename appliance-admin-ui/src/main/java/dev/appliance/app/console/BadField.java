package dev.appliance.app.console;

/**
 * A request field that is missing or wrong, or that names something absent or not the caller's to name; {@link
 * ProblemAdvice} answers it as a problem naming the field: 403 {@code AccessDenied}, 404 {@code NoSuchEntity}, else
 * {@code InvalidInput}.
 */
final class BadField extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String field;
    final int status;

    BadField(int status, String field, String message) {
        super(message, null, false, false);
        this.field = field;
        this.status = status;
    }

    String code() {
        return switch (status) {
            case 403 -> "AccessDenied";
            case 404 -> "NoSuchEntity";
            default -> "InvalidInput";
        };
    }
}
