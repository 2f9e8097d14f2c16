// DiscoDNCCheck reads pairs of lines from standard input, an arrival curve
// string and a service curve string as netcalc.FormatDNCArrival and
// netcalc.FormatDNCService write them, parses each with DiscoDNC's own
// string constructors and prints, tab-separated, the two strings as
// DiscoDNC prints them back, its horizontal and vertical deviations and its
// output curve (MinPlus.deconvolve), with the exact RATIONAL_BIGINTEGER
// number backend. netcalc's TestDiscoDNCCrossCheck compares its own
// results with discodnc.tsv, which this program wrote.
//
// To regenerate discodnc.tsv (no network needed): export the sources of
// github.com/NetCal/DNC (2.8.1) and github.com/NetCal/NumBackend, leave out
// the network-model packages (org/networkcalculus/dnc/model), and compile
// them with this file against Apache Commons Math 3 (Debian:
// libcommons-math3-java):
//
//	javac -d classes -cp /usr/share/java/commons-math3.jar $(cat sources.txt) DiscoDNCCheck.java
//	java -cp classes:/usr/share/java/commons-math3.jar DiscoDNCCheck < pairs.txt > discodnc.tsv
import java.io.BufferedReader;
import java.io.InputStreamReader;

import org.networkcalculus.dnc.Calculator;
import org.networkcalculus.dnc.curves.ArrivalCurve;
import org.networkcalculus.dnc.curves.Curve;
import org.networkcalculus.dnc.curves.ServiceCurve;
import org.networkcalculus.num.NumBackend;

public class DiscoDNCCheck {
    public static void main(String[] args) throws Exception {
        Calculator.getInstance().setNumBackend(NumBackend.RATIONAL_BIGINTEGER);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String a, s;
        while ((a = in.readLine()) != null && (s = in.readLine()) != null) {
            ArrivalCurve ac = Curve.getFactory().createArrivalCurve(a);
            ServiceCurve sc = Curve.getFactory().createServiceCurve(s);
            System.out.println(ac + "\t" + sc
                    + "\t" + Curve.getUtils().getMaxHorizontalDeviation(ac, sc)
                    + "\t" + Curve.getUtils().getMaxVerticalDeviation(ac, sc)
                    + "\t" + Calculator.getInstance().getMinPlus().deconvolve(ac, sc));
        }
    }
}
