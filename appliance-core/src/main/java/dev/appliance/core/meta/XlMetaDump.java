package dev.appliance.core.meta;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import org.msgpack.jackson.dataformat.MessagePackFactory;

/**
 * Diagnostic, schema-free view of an {@code xl.meta} for operators and tests: headers plus each body decoded by
 * Jackson's generic MessagePack reader (jackson-dataformat-msgpack) rather than by {@link VersionBodyCodec}. Being an
 * independent decoder, it also shows whether a body that the typed decoder rejects is at least well-formed msgpack. Off
 * the hot path: reads and writes go through the hand-written codec.
 */
public final class XlMetaDump {
    private static final ObjectMapper MSGPACK = new ObjectMapper(new MessagePackFactory());
    private static final ObjectMapper JSON = new ObjectMapper();

    private XlMetaDump() {}

    /** One JSON document: format counts, then per version its header fields and its body as a msgpack tree. */
    public static String toJson(XlMeta meta) {
        ObjectNode root = JSON.createObjectNode();
        root.put("versions", meta.versionCount());
        root.put("inlineEntries", meta.inlineCount());
        root.put("inlineBytes", meta.inlineBytes());
        root.put("fileBytes", meta.byteSize());
        ArrayNode versions = root.putArray("list");
        for (int i = 0; i < meta.versionCount(); i++) {
            VersionHeader h = meta.header(i);
            ObjectNode v = versions.addObject();
            v.put("versionId", h.versionId().toString());
            v.put("modTimeNanos", h.modTimeNanos());
            v.put("type", h.type().name());
            v.put("flags", h.flags());
            v.put("ec", h.dataShards() + "+" + h.parityShards());
            v.put("bodyCrc32c", Integer.toHexString(h.bodyChecksum()));
            byte[] inline = meta.inlineData(h.versionId());
            if (inline != null) {
                v.put("inlineBytes", inline.length);
            }
            v.set("body", bodyTree(meta.rawBody(i)));
        }
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The body decoded as a generic msgpack tree, or a text node describing why it could not be read. */
    static JsonNode bodyTree(byte[] body) {
        try {
            return MSGPACK.readTree(body);
        } catch (IOException | RuntimeException e) {
            return JSON.getNodeFactory().textNode("unreadable msgpack: " + e.getMessage());
        }
    }
}
