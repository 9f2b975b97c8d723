package dev.appliance.app.console;

import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.PropertySource;

/**
 * The admin API's OpenAPI 3 document ({@code /v3/api-docs}, springdoc builds it from the controllers) and Swagger UI
 * ({@code /swagger-ui/index.html}, served from the webjar inside the appliance, no CDN). Both are on the console
 * address behind the same guard as the API: an admin only, never anonymous (docs/admin-api.md). springdoc's settings
 * are in {@code api-docs.properties} next to this class.
 */
@Configuration(proxyBeanMethods = false)
@PropertySource("classpath:dev/appliance/app/console/api-docs.properties")
class ApiDocumentation {
    static final String VERSION = "v1";
    private static final String SIGV4 = "sigv4";
    private static final String TOKEN = "adminToken";
    private static final String SESSION = "consoleSession";

    @Bean
    OpenAPI applianceOpenApi() {
        return new OpenAPI()
                .info(new Info()
                        .title("Appliance admin API")
                        .version(VERSION)
                        .description("The admin REST API of the appliance, on its console address: drives and"
                                + " erasure sets, healing, the scanner, alerts, bucket settings, IAM users, keys and"
                                + " policies, the audit log and the configuration. Every path under /api/v1/admin"
                                + " needs an admin: a request SigV4-signed (service s3, region us-east-1) by a key, an"
                                + " admin bearer token, or a console session (POST /api/v1/session; changes echo the"
                                + " XSRF-TOKEN cookie in X-XSRF-TOKEN), whose policies allow admin:<METHOD> <path>."
                                + " Errors are RFC 9457 problems with a stable code."))
                .components(new Components()
                        .addSecuritySchemes(
                                SIGV4,
                                new SecurityScheme()
                                        .type(SecurityScheme.Type.APIKEY)
                                        .in(SecurityScheme.In.HEADER)
                                        .name("Authorization")
                                        .description("AWS Signature Version 4 (AWS4-HMAC-SHA256), service s3, with"
                                                + " the x-amz-date and x-amz-content-sha256 headers signed"))
                        .addSecuritySchemes(
                                TOKEN,
                                new SecurityScheme()
                                        .type(SecurityScheme.Type.HTTP)
                                        .scheme("bearer")
                                        .description("An admin token (apt_...), scoped and expiring:"
                                                + " POST /api/v1/admin/tokens"))
                        .addSecuritySchemes(
                                SESSION,
                                new SecurityScheme()
                                        .type(SecurityScheme.Type.APIKEY)
                                        .in(SecurityScheme.In.COOKIE)
                                        .name(ConsoleSecurity.SESSION_COOKIE)
                                        .description("A console session (POST /api/v1/session)")))
                .addSecurityItem(new SecurityRequirement().addList(SIGV4))
                .addSecurityItem(new SecurityRequirement().addList(TOKEN))
                .addSecurityItem(new SecurityRequirement().addList(SESSION));
    }
}
