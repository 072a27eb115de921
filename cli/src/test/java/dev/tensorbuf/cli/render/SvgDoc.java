package dev.tensorbuf.cli.render;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** A rendered SVG read back with the JDK's XML parser: the labelled elements the tests check. */
public record SvgDoc(Document document) {
    /** Parses the document; a malformed picture fails here. */
    public static SvgDoc parse(String svg) {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            return new SvgDoc(f.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8))));
        } catch (Exception e) {
            throw new AssertionError("the SVG does not parse: " + e.getMessage() + "\n" + svg, e);
        }
    }

    /** {@return every element named {@code tag} whose class list contains {@code cls}, in document order} */
    public List<Element> elements(String tag, String cls) {
        NodeList nodes = document.getElementsByTagName(tag);
        List<Element> out = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            Element e = (Element) nodes.item(i);
            if (List.of(e.getAttribute("class").split(" ")).contains(cls)) {
                out.add(e);
            }
        }
        return out;
    }

    /** {@return grid numbers of logical cells: data-index to the number drawn} */
    public Map<String, Long> offsets() {
        return numbers("offset", "data-index");
    }

    /** {@return grid numbers of padding cells: data-padded-index to the slot drawn} */
    public Map<String, Long> paddingOffsets() {
        return numbers("pad-offset", "data-padded-index");
    }

    private Map<String, Long> numbers(String cls, String key) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Element e : elements("text", cls)) {
            if (out.put(e.getAttribute(key), Long.parseLong(e.getTextContent())) != null) {
                throw new AssertionError("two cells labelled " + e.getAttribute(key));
            }
        }
        return out;
    }

    /** {@return strip slots that hold an element: slot number to the index text (data-index)} */
    public Map<Long, String> slotIndices() {
        Map<Long, String> out = new LinkedHashMap<>();
        for (Element e : elements("text", "slot")) {
            out.put(Long.parseLong(e.getAttribute("data-slot")), e.getAttribute("data-index"));
        }
        return out;
    }

    /** {@return strip slot number to the label drawn in it} */
    public Map<Long, String> slotLabels() {
        Map<Long, String> out = new LinkedHashMap<>();
        for (Element e : elements("text", "slot")) {
            out.put(Long.parseLong(e.getAttribute("data-slot")), e.getTextContent());
        }
        return out;
    }

    /** {@return the slots drawn as padding boxes} */
    public List<Long> paddingSlots() {
        return elements("rect", "padding").stream()
                .filter(e -> e.hasAttribute("data-slot"))
                .map(e -> Long.parseLong(e.getAttribute("data-slot"))).toList();
    }

    /** {@return the text of every element of a class, in order} */
    public List<String> texts(String cls) {
        return elements("text", cls).stream().map(Element::getTextContent).toList();
    }
}
