package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.s3.auth.SigV4;
import dev.appliance.s3.auth.UriEncoding;
import dev.appliance.s3.testing.S3TestServer;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.EncodingType;
import software.amazon.awssdk.services.s3.model.ListObjectVersionsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;

/**
 * Listing details as S3 has them, checked on the XML the server writes (raw requests) and through the SDK (asking for
 * {@code encoding-type=url}, which it then decodes): URL encoding of every key-like element, {@code max-keys=0},
 * {@code fetch-owner}, {@code KeyCount}, {@code StorageClass}.
 */
class ListingServerTest {
    private static final String AK = S3TestServer.ACCESS_KEY;
    private static final String SK = S3TestServer.SECRET_KEY;
    /** Keys a client would mangle without URL encoding: space, plus, percent, ampersand, non-ASCII, a control. */
    private static final List<String> ODD_KEYS =
            List.of("a b/c+d", "a b/e%20f", "a b/g&h<i>", "a b/sub/deep", "a+b", "plain", "x\u0001y", "é/ü", "€ 😀");

    private static S3Client s3;
    private static String bucket;
    private static String versioned;

    @RegisterExtension
    static final S3TestServer SERVER = S3TestServer.allowingAll();

    @BeforeAll
    static void start() throws Exception {
        s3 = SERVER.client(b -> b.httpClient(UrlConnectionHttpClient.create()));
        bucket = "listing";
        s3.createBucket(b -> b.bucket(bucket));
        for (String k : ODD_KEYS) {
            s3.putObject(b -> b.bucket(bucket).key(k), RequestBody.fromString(k));
        }
        versioned = "listing-versions";
        s3.createBucket(b -> b.bucket(versioned));
        s3.putBucketVersioning(
                b -> b.bucket(versioned).versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED)));
        for (String k : List.of("a b/1", "a b/1", "a b/2", "c+d")) {
            s3.putObject(b -> b.bucket(versioned).key(k), RequestBody.fromString(k));
        }
        s3.deleteObject(b -> b.bucket(versioned).key("c+d"));
    }

    // ---- raw XML ----

    @Test
    void v2_urlEncoding_encodesKeysPrefixDelimiterStartAfterAndCommonPrefixes() throws Exception {
        String xml = get(bucket, "list-type=2&encoding-type=url&prefix=a%20b%2F&delimiter=%2F&start-after=a%20b%2Fc");
        assertThat(xml)
                .contains("<EncodingType>url</EncodingType>")
                .contains("<Prefix>a%20b/</Prefix>")
                .contains("<Delimiter>/</Delimiter>")
                .contains("<StartAfter>a%20b/c</StartAfter>");
        assertThat(all(xml, "Key")).containsExactly("a%20b/c%2Bd", "a%20b/e%2520f", "a%20b/g%26h%3Ci%3E");
        assertThat(all(xml, "CommonPrefixes")).containsExactly("<Prefix>a%20b/sub/</Prefix>");
        assertThat(one(xml, "KeyCount")).isEqualTo("4");
        for (String k : all(xml, "Key")) {
            assertThat(UriEncoding.decode(k)).startsWith("a b/");
        }
    }

    @Test
    void v2_withoutEncoding_keysAreXmlEscapedOnly_andNoEncodingTypeElement() throws Exception {
        String xml = get(bucket, "list-type=2&prefix=a%20b%2Fg");
        assertThat(xml).doesNotContain("EncodingType").contains("<Prefix>a b/g</Prefix>");
        assertThat(all(xml, "Key")).containsExactly("a b/g&amp;h&lt;i&gt;");
        String control = get(bucket, "list-type=2&prefix=x");
        assertThat(all(control, "Key")).containsExactly("x&#x1;y");
        assertThat(all(get(bucket, "list-type=2&prefix=x&encoding-type=url"), "Key"))
                .containsExactly("x%01y");
    }

    @Test
    void v2_keyCountCountsKeysAndCommonPrefixes_everyEntryIsStandard_ownerOnlyWithFetchOwner() throws Exception {
        String xml = get(bucket, "list-type=2&delimiter=%2F");
        List<String> keys = all(xml, "Key");
        List<String> prefixes = all(xml, "CommonPrefixes");
        assertThat(keys).containsExactly("a+b", "plain", "x&#x1;y", "€ 😀");
        assertThat(prefixes).containsExactly("<Prefix>a b/</Prefix>", "<Prefix>é/</Prefix>");
        assertThat(one(xml, "KeyCount")).isEqualTo("6");
        assertThat(all(xml, "StorageClass")).hasSize(keys.size()).containsOnly("STANDARD");
        assertThat(xml).doesNotContain("<Owner>");
        String owned = get(bucket, "list-type=2&delimiter=%2F&fetch-owner=true");
        assertThat(all(owned, "Owner"))
                .hasSize(keys.size())
                .allMatch(o -> o.contains("<ID>") && o.contains("<DisplayName>root</DisplayName>"));
        assertThat(get(bucket, "list-type=2&fetch-owner=false")).doesNotContain("<Owner>");
    }

    @Test
    void maxKeysZero_isAnEmptyUntruncatedPage_inEveryListing() throws Exception {
        for (String query : List.of("list-type=2&max-keys=0", "max-keys=0", "versions&max-keys=0")) {
            String xml = query.startsWith("versions") ? get(versioned, query) : get(bucket, query);
            assertThat(one(xml, "MaxKeys")).as(query).isEqualTo("0");
            assertThat(one(xml, "IsTruncated")).as(query).isEqualTo("false");
            assertThat(xml).as(query).doesNotContain("<Contents>", "<Version>", "<DeleteMarker>", "Next");
        }
        assertThat(one(get(bucket, "list-type=2&max-keys=0"), "KeyCount")).isEqualTo("0");
        assertThat(get("no-such-bucket", "list-type=2&max-keys=0")).contains("<Code>NoSuchBucket</Code>");
    }

    @Test
    void v1_urlEncoding_encodesMarkerAndNextMarker_ownerAndStorageClassAlways() throws Exception {
        String xml = get(bucket, "encoding-type=url&delimiter=%2F&max-keys=1&marker=a%2Bb");
        assertThat(one(xml, "Marker")).isEqualTo("a%2Bb");
        assertThat(one(xml, "IsTruncated")).isEqualTo("true");
        assertThat(all(xml, "Key")).containsExactly("plain");
        assertThat(one(xml, "NextMarker")).isEqualTo("plain");
        assertThat(one(xml, "EncodingType")).isEqualTo("url");
        String first = get(bucket, "encoding-type=url&delimiter=%2F&max-keys=1");
        assertThat(all(first, "CommonPrefixes")).containsExactly("<Prefix>a%20b/</Prefix>");
        assertThat(one(first, "NextMarker")).isEqualTo("a%20b/");
        assertThat(one(first, "Marker")).isEmpty();
        // V1 echoes Prefix unencoded even with encoding-type=url (SDKs do not decode it there)
        assertThat(one(get(bucket, "encoding-type=url&prefix=a%20b%2F"), "Prefix"))
                .isEqualTo("a b/");
        String plain = get(bucket, "prefix=plain");
        assertThat(all(plain, "Owner")).hasSize(1);
        assertThat(all(plain, "StorageClass")).containsExactly("STANDARD");
    }

    @Test
    void versions_urlEncoding_encodesKeyMarkerAndNextKeyMarker_standardOnVersionsOnly() throws Exception {
        String xml = get(versioned, "versions&encoding-type=url&max-keys=2&key-marker=a%20b%2F0");
        assertThat(one(xml, "KeyMarker")).isEqualTo("a%20b/0");
        assertThat(one(xml, "EncodingType")).isEqualTo("url");
        assertThat(all(xml, "Key")).containsExactly("a%20b/1", "a%20b/1");
        assertThat(one(xml, "NextKeyMarker")).isEqualTo("a%20b/1");
        assertThat(one(xml, "NextVersionIdMarker")).isNotEmpty();
        String rest = get(versioned, "versions&encoding-type=url&delimiter=%2F");
        assertThat(all(rest, "CommonPrefixes")).containsExactly("<Prefix>a%20b/</Prefix>");
        assertThat(all(rest, "DeleteMarker")).singleElement().satisfies(m -> {
            assertThat(m)
                    .contains("<Key>c%2Bd</Key>", "<IsLatest>true</IsLatest>")
                    .doesNotContain("StorageClass");
        });
        assertThat(all(rest, "Version")).singleElement().satisfies(v -> {
            assertThat(v).contains("<Key>c%2Bd</Key>", "<StorageClass>STANDARD</StorageClass>", "<Owner>");
        });
    }

    @Test
    void badParameters_areInvalidArgument() throws Exception {
        for (String q : List.of("list-type=2&encoding-type=base64", "list-type=2&max-keys=-1", "max-keys=ten")) {
            assertThat(get(bucket, q)).as(q).contains("<Code>InvalidArgument</Code>");
        }
        assertThat(get(versioned, "versions&version-id-marker=null")).contains("<Code>InvalidArgument</Code>");
    }

    // ---- through the SDK: with encoding-type=url (as with S3, a key holding a character XML 1.0 cannot carry, here
    // U+0001, can only be listed that way), which the client decodes ----

    @Test
    void sdk_v2Paginator_returnsOddKeysExactly() {
        List<String> keys = new ArrayList<>();
        for (ListObjectsV2Response page :
                s3.listObjectsV2Paginator(b -> b.bucket(bucket).maxKeys(2).encodingType(EncodingType.URL))) {
            assertThat(page.keyCount())
                    .isLessThanOrEqualTo(2)
                    .isEqualTo(page.contents().size());
            page.contents().forEach(o -> {
                assertThat(o.storageClassAsString()).isEqualTo("STANDARD");
                keys.add(o.key());
            });
        }
        assertThat(keys).containsExactlyElementsOf(ODD_KEYS);
        ListObjectsV2Response startAfter = s3.listObjectsV2(
                b -> b.bucket(bucket).startAfter("a b/e%20f").prefix("a b/").delimiter("/"));
        assertThat(startAfter.startAfter()).isEqualTo("a b/e%20f");
        assertThat(startAfter.prefix()).isEqualTo("a b/");
        assertThat(startAfter.contents()).extracting(o -> o.key()).containsExactly("a b/g&h<i>");
        assertThat(startAfter.commonPrefixes()).extracting(p -> p.prefix()).containsExactly("a b/sub/");
    }

    @Test
    void sdk_v1MarkerPaging_withDelimiter_visitsEveryEntryOnce() {
        List<String> seen = new ArrayList<>();
        String marker = null;
        for (int guard = 0; guard < 20; guard++) {
            String m = marker;
            ListObjectsResponse page = s3.listObjects(
                    b -> b.bucket(bucket).delimiter("/").maxKeys(1).marker(m).encodingType(EncodingType.URL));
            page.contents().forEach(o -> seen.add(o.key()));
            page.commonPrefixes().forEach(p -> seen.add(p.prefix()));
            if (!page.isTruncated()) {
                break;
            }
            marker = page.nextMarker();
            assertThat(marker).isNotNull();
        }
        assertThat(seen).containsExactly("a b/", "a+b", "plain", "x\u0001y", "é/", "€ 😀");
    }

    @Test
    void sdk_versionPaging_decodesMarkers() {
        List<String> seen = new ArrayList<>();
        String keyMarker = null;
        String versionMarker = null;
        for (int guard = 0; guard < 20; guard++) {
            String km = keyMarker;
            String vm = versionMarker;
            ListObjectVersionsResponse page = s3.listObjectVersions(b -> b.bucket(versioned)
                    .maxKeys(1)
                    .keyMarker(km)
                    .versionIdMarker(vm)
                    .encodingType(EncodingType.URL));
            page.versions().forEach(v -> seen.add(v.key()));
            page.deleteMarkers().forEach(d -> seen.add("marker:" + d.key()));
            if (!page.isTruncated()) {
                break;
            }
            keyMarker = page.nextKeyMarker();
            versionMarker = page.nextVersionIdMarker();
        }
        assertThat(seen).containsExactly("a b/1", "a b/1", "a b/2", "marker:c+d", "c+d");
    }

    // ---- helpers ----

    private static String one(String xml, String element) {
        return XmlText.one(xml, element);
    }

    private static List<String> all(String xml, String element) {
        return XmlText.all(xml, element);
    }

    /** A signed GET of {@code /bucket?query}; the body of the answer. */
    private static String get(String bucketName, String query) throws Exception {
        String amzDate = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
                .withZone(ZoneOffset.UTC)
                .format(ZonedDateTime.now());
        String host = "127.0.0.1:" + SERVER.port();
        TreeMap<String, List<String>> h = new TreeMap<>();
        h.put("host", List.of(host));
        h.put("x-amz-content-sha256", List.of(SigV4.EMPTY_SHA256));
        h.put("x-amz-date", List.of(amzDate));
        String path = "/" + bucketName;
        String sig = SigV4.sign(
                SK, amzDate.substring(0, 8), "us-east-1", amzDate, "GET", path, query, h, SigV4.EMPTY_SHA256);
        String request = "GET " + path + "?" + query + " HTTP/1.1\r\n"
                + "Host: " + host + "\r\n"
                + "x-amz-content-sha256: " + SigV4.EMPTY_SHA256 + "\r\n"
                + "x-amz-date: " + amzDate + "\r\n"
                + "Authorization: AWS4-HMAC-SHA256 Credential=" + AK + "/" + amzDate.substring(0, 8)
                + "/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=" + sig
                + "\r\nConnection: close\r\n\r\n";
        try (Socket s = new Socket("127.0.0.1", SERVER.port())) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            in.transferTo(got);
            String resp = got.toString(StandardCharsets.UTF_8);
            int body = resp.indexOf("\r\n\r\n");
            return body < 0 ? resp : resp.substring(body + 4);
        }
    }
}
