package dev.appliance.installer;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.installer.check.NodeFacts;
import dev.appliance.installer.check.NodeRules;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The {@code "node"} object of {@code check --json}: written by {@link Report}, read back by {@code compare}. A fact
 * the node could not read is {@code null}; a missing key or a value of the wrong type makes the report unusable, so
 * that a hand-edited or truncated file is named rather than judged.
 */
final class NodeReport {
    private NodeReport() {}

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A report {@code compare} cannot use; the message names the file and what is wrong with it. */
    static final class Unusable extends Exception {
        private static final long serialVersionUID = 1L;

        Unusable(String message) {
            super(message);
        }
    }

    static Map<String, Object> toJson(NodeFacts node) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("hostname", node.hostname());
        m.put("cpuModel", node.cpuModel());
        m.put("cpuFlags", node.cpuFlags().orElse(null));
        m.put("cores", node.cores().isPresent() ? node.cores().getAsInt() : null);
        m.put("ramBytes", node.ramBytes().isPresent() ? node.ramBytes().getAsLong() : null);
        m.put("kernelRelease", node.kernelRelease());
        m.put("mtu", node.mtus());
        m.put("version", node.version().orElse(null));
        return m;
    }

    /** The report in {@code file}, or on {@code stdin} when the file is {@code -}. */
    static NodeRules.Node read(String file, InputStream stdin) throws Unusable {
        String named = file.equals("-") ? "standard input" : file;
        JsonNode json;
        try {
            json = file.equals("-") ? JSON.readTree(stdin) : JSON.readTree(Files.readAllBytes(Path.of(file)));
        } catch (NoSuchFileException e) {
            throw new Unusable(named + ": no such file");
        } catch (JacksonException e) {
            throw new Unusable(named + ": not JSON (" + e.getOriginalMessage() + "); expected the output of"
                    + " appliance-installer check --json");
        } catch (IOException e) {
            throw new Unusable(named + ": cannot be read: " + e);
        }
        if (json == null || json.isMissingNode() || !json.isObject()) {
            throw new Unusable(named + ": not a JSON object; expected the output of appliance-installer check --json");
        }
        JsonNode node = json.get("node");
        if (node == null || !node.isObject()) {
            throw new Unusable(named + ": no \"node\" object"
                    + (json.has("checks") ? " (written by an installer older than compare)" : "")
                    + "; run this installer's check --json on that node again");
        }
        try {
            return new NodeRules.Node(file, facts(node));
        } catch (IllegalArgumentException e) {
            throw new Unusable(named + ": " + e.getMessage() + "; run check --json on that node again");
        }
    }

    private static NodeFacts facts(JsonNode node) {
        JsonNode flags = field(node, "cpuFlags", true);
        Optional<List<String>> cpuFlags = Optional.empty();
        if (!flags.isNull()) {
            if (!flags.isArray()) {
                throw wrong("cpuFlags", "a list of flags or null");
            }
            List<String> list = new ArrayList<>();
            for (JsonNode f : flags) {
                if (!f.isTextual()) {
                    throw wrong("cpuFlags", "a list of flags or null");
                }
                list.add(f.asText());
            }
            cpuFlags = Optional.of(list);
        }
        JsonNode cores = field(node, "cores", true);
        if (!cores.isNull() && !(cores.isIntegralNumber() && cores.canConvertToInt())) {
            throw wrong("cores", "a whole number or null");
        }
        JsonNode ram = field(node, "ramBytes", true);
        if (!ram.isNull() && !(ram.isIntegralNumber() && ram.canConvertToLong())) {
            throw wrong("ramBytes", "a whole number or null");
        }
        JsonNode mtu = field(node, "mtu", false);
        if (!mtu.isObject()) {
            throw wrong("mtu", "an object of interface names and MTUs");
        }
        TreeMap<String, Integer> mtus = new TreeMap<>();
        for (Map.Entry<String, JsonNode> e : mtu.properties()) {
            if (!(e.getValue().isIntegralNumber() && e.getValue().canConvertToInt())) {
                throw wrong("mtu." + e.getKey(), "a whole number");
            }
            mtus.put(e.getKey(), e.getValue().asInt());
        }
        JsonNode version = field(node, "version", true);
        return new NodeFacts(
                text(node, "hostname"),
                text(node, "cpuModel"),
                cpuFlags,
                cores.isNull() ? OptionalInt.empty() : OptionalInt.of(cores.asInt()),
                ram.isNull() ? OptionalLong.empty() : OptionalLong.of(ram.asLong()),
                text(node, "kernelRelease"),
                mtus,
                version.isNull() ? Optional.empty() : Optional.of(version.asText()));
    }

    private static JsonNode field(JsonNode node, String name, boolean nullable) {
        JsonNode v = node.get(name);
        if (v == null || (!nullable && v.isNull())) {
            throw new IllegalArgumentException("node." + name + " is missing");
        }
        return v;
    }

    private static String text(JsonNode node, String name) {
        JsonNode v = field(node, name, false);
        if (!v.isTextual()) {
            throw wrong(name, "a string");
        }
        return v.asText();
    }

    private static IllegalArgumentException wrong(String name, String expected) {
        return new IllegalArgumentException("node." + name + " is not " + expected);
    }
}
