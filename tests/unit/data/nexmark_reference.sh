#!/usr/bin/env bash
# nexmark_reference.sh REPO — regenerate nexmark_reference.tsv from the
# reference Nexmark generator's own Java code (REPO: a clone of
# github.com/nexmark/nexmark at commit 6b3646c3baec701f1fa74baf938d235f742e5d3c).
#
# The generator classes are compiled as they are, except: each event's
# SplittableRandom is seeded with its event id (the reference shares one
# unseeded generator), the static tables' generators get the fixed seeds
# Sluice uses (connectors/nexmark/nexmark_gen.c), NexmarkConfiguration is a
# stub with the reference's defaults, and Flink's checkNotNull / @Nullable are
# replaced. Dump.java prints one split's events, times relative to base 0.
# Needs a JDK (javac, java); the unit test test_connectors_nexmark reads the
# file.
set -euo pipefail
repo=$1
out=$(cd "$(dirname "$0")" && pwd)/nexmark_reference.tsv
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$repo/nexmark-flink/src/main/java
F=com/github/nexmark/flink
for f in generator/GeneratorConfig generator/NexmarkGenerator generator/model/AuctionGenerator \
         generator/model/BidGenerator generator/model/LongGenerator generator/model/PersonGenerator \
         generator/model/PriceGenerator generator/model/StringsGenerator model/Auction model/Bid \
         model/Event model/Person; do
  mkdir -p "$work/$(dirname $F/$f)"
  cp "$src/$F/$f.java" "$work/$F/$f.java"
done
cd "$work"
sed -i 's/^import javax.annotation.Nullable;//; s/@Nullable //g' $F/model/Event.java
sed -i -e 's/^import static org.apache.flink.util.Preconditions.checkNotNull;/import static java.util.Objects.requireNonNull;/' \
  -e 's/checkNotNull(/requireNonNull(/' \
  -e 's/private final SplittableRandom random = new SplittableRandom();//' \
  -e 's/long rem = newEventId % config.totalProportion;/long rem = newEventId % config.totalProportion; SplittableRandom random = new SplittableRandom(newEventId);/' \
  $F/generator/NexmarkGenerator.java
sed -i 's/nextExactString(new SplittableRandom(), 1024 \* 1024)/nextExactString(new SplittableRandom(0x4E65786D61726B31L), 1024 * 1024)/' \
  $F/generator/model/StringsGenerator.java
sed -i 's/private static final SplittableRandom random = new SplittableRandom();/private static final SplittableRandom random = new SplittableRandom(0x4E65786D61726B32L);/' \
  $F/generator/model/BidGenerator.java
sed -i 's/this.stepLengthSec = configuration.rateShape.stepLengthSec(configuration.ratePeriodSec);/this.stepLengthSec = 0;/' \
  $F/generator/GeneratorConfig.java
cat > $F/NexmarkConfiguration.java <<'JAVA'
package com.github.nexmark.flink;
/* A stub of the reference's NexmarkConfiguration: the fields the generator reads, with their defaults. */
public class NexmarkConfiguration implements java.io.Serializable {
  public long numEvents = 0; public int numEventGenerators = 1; public int firstEventRate = 10000; public int nextEventRate = 10000;
  public int ratePeriodSec = 600; public boolean isRateLimited = false; public int personProportion = 1; public int auctionProportion = 3;
  public int bidProportion = 46; public int avgPersonByteSize = 200; public int avgAuctionByteSize = 500; public int avgBidByteSize = 100;
  public int hotAuctionRatio = 2; public int hotSellersRatio = 4; public int hotBiddersRatio = 4; public int numInFlightAuctions = 100;
  public int numActivePeople = 1000; public long occasionalDelaySec = 3; public double probDelayedEvent = 0.1; public long outOfOrderGroupSize = 1;
  public boolean isSourceKeepAlive = false; public long stopAtEvent = -1L; public boolean maxEmitSpeed = true;
}
JAVA
cat > Dump.java <<'JAVA'
import com.github.nexmark.flink.NexmarkConfiguration;
import com.github.nexmark.flink.generator.*;
import com.github.nexmark.flink.model.*;
/* Dump N events of split K of P, the reference generator's code with each event's
 * SplittableRandom seeded by its event id; times relative to the base time (0).
 * args: N P K [outOfOrderGroupSize] */
public class Dump {
  public static void main(String[] a) {
    NexmarkConfiguration c = new NexmarkConfiguration();
    long n = Long.parseLong(a[0]); int p = Integer.parseInt(a[1]); int k = Integer.parseInt(a[2]);
    if (a.length > 3) c.outOfOrderGroupSize = Long.parseLong(a[3]);
    c.numEventGenerators = p; c.numEvents = n;
    GeneratorConfig g = new GeneratorConfig(c, 0, 1, n, -1, 1);
    NexmarkGenerator gen = new NexmarkGenerator(g.split(p).get(k).reconfigure(g, g.isSourceIgnoreStop()));
    StringBuilder sb = new StringBuilder();
    while (gen.hasNext()) {
      Event e = gen.next().event;
      if (e.newPerson != null) { Person x = e.newPerson;
        sb.append("0\t").append(x.id).append('\t').append(x.name).append('\t').append(x.emailAddress).append('\t').append(x.creditCard).append('\t').append(x.city).append('\t').append(x.state).append('\t').append(x.dateTime.toEpochMilli()).append('\t').append(x.extra);
      } else if (e.newAuction != null) { Auction x = e.newAuction;
        sb.append("1\t").append(x.id).append('\t').append(x.itemName).append('\t').append(x.description).append('\t').append(x.initialBid).append('\t').append(x.reserve).append('\t').append(x.dateTime.toEpochMilli()).append('\t').append(x.expires.toEpochMilli()).append('\t').append(x.seller).append('\t').append(x.category).append('\t').append(x.extra);
      } else { Bid x = e.bid;
        sb.append("2\t").append(x.auction).append('\t').append(x.bidder).append('\t').append(x.price).append('\t').append(x.channel).append('\t').append(x.url).append('\t').append(x.dateTime.toEpochMilli()).append('\t').append(x.extra);
      }
      sb.append('\n');
    }
    System.out.print(sb);
  }
}
JAVA
mkdir classes
javac -nowarn -d classes $(find . -name '*.java') 2>/dev/null
{
  echo "# 500 1 0 1"; java -cp classes Dump 500 1 0
  echo "# 600 3 1 1"; java -cp classes Dump 600 3 1
  echo "# 100 1 0 5"; java -cp classes Dump 100 1 0 5
  echo "# 90 2 1 3"; java -cp classes Dump 90 2 1 3
} >"$out"
echo "wrote $out"
