package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Element texts of an S3 XML answer, read as raw text (so encodings and escapes are seen as the client sees them). */
final class XmlText {
    private XmlText() {}

    /** The text of the one {@code element}; fails unless there is exactly one. */
    static String one(String xml, String element) {
        List<String> found = all(xml, element);
        assertThat(found).as(element + " in " + xml).hasSize(1);
        return found.getFirst();
    }

    static List<String> all(String xml, String element) {
        Matcher m = Pattern.compile("<" + element + ">(.*?)</" + element + ">", Pattern.DOTALL)
                .matcher(xml);
        List<String> out = new ArrayList<>();
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }
}
