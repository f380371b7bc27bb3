// MIG validation: the worked examples of the hardware reference (section 1.5), every
// single-profile maximum, start and overlap violations, two +me, A30 rules, and the layout syntax.
#include <QtTest>

#include "mig/mig_validate.h"
#include "mig_test_util.h"

using namespace tessera;
using tessera::test::layout;
using tessera::test::model;

class TstMigValidate : public QObject {
  Q_OBJECT

 private:
  static MigVerdict check(const char* gpu, const char* text) {
    const GpuModel& m = model(gpu);
    return validateMigLayout(*m.mig, layout(m, text));
  }
  static QString explain(const char* gpu, const char* text) {
    const GpuModel& m = model(gpu);
    const MigLayout l = layout(m, text);
    return QString::fromStdString(explainMigVerdict(m, l, validateMigLayout(*m.mig, l)));
  }

 private slots:
  void referenceWorkedExamples_data() {
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<QString>("layout");
    QTest::addColumn<int>("check");
    // Reference 1.5, "Worked examples (8-slice GPUs)", on H100 SXM and A100-80GB names.
    QTest::newRow("3-2-1-1 H100") << "H100"
                                  << "3g.40gb@4,2g.20gb@0,1g.10gb@2,1g.10gb@3" << int(MigCheck::Ok);
    QTest::newRow("4g+3g H100") << "H100"
                                << "4g.40gb@0,3g.40gb@4" << int(MigCheck::Ok);
    QTest::newRow("2g x3 + 1g.20gb@6")
        << "H100"
        << "2g.20gb@0,2g.20gb@2,2g.20gb@4,1g.20gb@6" << int(MigCheck::Ok);
    QTest::newRow("3g+3g+1g no slice free")
        << "H100"
        << "3g.40gb@0,3g.40gb@4,1g.10gb@6" << int(MigCheck::MemoryOverlap);
    QTest::newRow("four 1g.20gb") << "H100"
                                  << "1g.20gb@0,1g.20gb@2,1g.20gb@4,1g.20gb@6" << int(MigCheck::Ok);
    QTest::newRow("two 1g+me") << "H100"
                               << "1g.10gb+me@0,1g.10gb+me@1" << int(MigCheck::CountExceeded);
    QTest::newRow("3-2-1-1 A100-40GB")
        << "A100-SXM4-40GB"
        << "3g.20gb@4,2g.10gb@0,1g.5gb@2,1g.5gb@3" << int(MigCheck::Ok);
    QTest::newRow("3-2-1-1 H200") << "H200"
                                  << "3g.71gb@4,2g.35gb@0,1g.18gb@2,1g.18gb@3" << int(MigCheck::Ok);
    QTest::newRow("full 7g") << "A100-80GB"
                             << "7g.80gb@0" << int(MigCheck::Ok);
    QTest::newRow("7g plus anything") << "A100-80GB"
                                      << "7g.80gb@0,1g.10gb@6" << int(MigCheck::MemoryOverlap);
    QTest::newRow("empty layout") << "H100"
                                  << "-" << int(MigCheck::Ok);
  }
  void referenceWorkedExamples() {
    QFETCH(QString, gpu);
    QFETCH(QString, layout);
    QFETCH(int, check);
    const MigVerdict v =
        TstMigValidate::check(gpu.toUtf8().constData(), layout.toUtf8().constData());
    QCOMPARE(int(v.check), check);
  }

  // Check 1: a start outside the allowed set, for every profile and every disallowed start.
  void startNotAllowedForEveryProfile() {
    for (const char* gpu : {"H100", "A100-40GB", "A30"}) {
      const GpuModel& m = model(gpu);
      const MigGeometry& g = *m.mig;
      for (int p = 0; p < static_cast<int>(g.profiles.size()); ++p) {
        for (int s = 0; s < g.memorySlices; ++s) {
          MigLayout l;
          MigInstance inst;
          inst.profile = static_cast<int8_t>(p);
          inst.start = static_cast<int8_t>(s);
          l.add(inst);
          const MigVerdict v = validateMigLayout(g, l);
          const bool allowed = g.profiles[static_cast<size_t>(p)].canStartAt(s);
          QCOMPARE(v.ok(), allowed);
          if (!allowed) QCOMPARE(v.check, MigCheck::StartNotAllowed);
        }
      }
    }
  }

  void startNotAllowedExplained() {
    QCOMPARE(check("H100", "3g.40gb@2").check, MigCheck::StartNotAllowed);
    const QString why = explain("H100", "3g.40gb@2");
    QVERIFY2(why.contains("check 1") && why.contains("{0,4}") && why.contains("memory slice 2"),
             qPrintable(why));
    QCOMPARE(check("H100", "1g.10gb@7").check,
             MigCheck::StartNotAllowed);  // slot 7 is never a 1g start
    QCOMPARE(check("H100", "2g.20gb@6").check, MigCheck::StartNotAllowed);
    QCOMPARE(check("H100", "1g.20gb@1").check, MigCheck::StartNotAllowed);
    QCOMPARE(check("H100", "4g.40gb@4").check, MigCheck::StartNotAllowed);
  }

  void overlapNamesBothInstances() {
    const MigVerdict v = check("H100", "4g.40gb@0,2g.20gb@2");
    QCOMPARE(v.check, MigCheck::MemoryOverlap);
    QCOMPARE(int(v.instance), 1);
    QCOMPARE(int(v.other), 0);
    const QString why = explain("H100", "4g.40gb@0,2g.20gb@2");
    QVERIFY2(why.contains("check 2") && why.contains("2g.20gb@2 (slices 2-3)") &&
                 why.contains("4g.40gb@0 (slices 0-3)"),
             qPrintable(why));
    QCOMPARE(check("H100", "1g.10gb@3,1g.10gb@3").check, MigCheck::MemoryOverlap);
    QCOMPARE(check("H100", "1g.20gb@6,3g.40gb@4").check, MigCheck::MemoryOverlap);
  }

  // Check 3: for every profile, max instances are valid where they fit, max+1 are rejected.
  void singleProfileMaximum() {
    for (const char* gpu :
         {"H100", "A100-40GB", "A100-80GB", "H100-NVL", "H200", "GH200-96GB", "A30"}) {
      const GpuModel& m = model(gpu);
      const MigGeometry& g = *m.mig;
      for (int p = 0; p < static_cast<int>(g.profiles.size()); ++p) {
        const MigProfile& prof = g.profiles[static_cast<size_t>(p)];
        // Place as many as fit greedily at allowed starts; that number must equal the table's Max.
        MigLayout l;
        uint16_t used = 0;
        for (int s = 0; s < g.memorySlices; ++s) {
          if (!prof.canStartAt(s) || (used & prof.maskAt(s))) continue;
          MigInstance inst;
          inst.profile = static_cast<int8_t>(p);
          inst.start = static_cast<int8_t>(s);
          l.add(inst);
          used = static_cast<uint16_t>(used | prof.maskAt(s));
        }
        const QByteArray label = QByteArray(gpu) + " " + prof.name.c_str();
        if (prof.mediaExtensions) {
          // +me: geometry allows several, the count/engine rules allow exactly one.
          QVERIFY2(l.size() > 1, label.constData());
          QCOMPARE(prof.maxCount, 1);
          const MigVerdict v = validateMigLayout(g, l);
          QVERIFY2(v.check == MigCheck::CountExceeded || v.check == MigCheck::EnginesExceeded,
                   label.constData());
          continue;
        }
        QVERIFY2(l.size() == prof.maxCount, label.constData());
        QVERIFY2(validateMigLayout(g, l).ok(), label.constData());
      }
    }
  }

  void countExceededExplained() {
    const GpuModel& m = model("H100");
    // Build 8 x 1g.10gb by hand: slot 7 is not an allowed start, so the 8th fails check 1 first;
    // use 1g.10gb+me twice instead to hit check 3 with a readable message.
    const QString why = explain("H100", "1g.10gb+me@0,1g.10gb+me@1");
    QVERIFY2(why.contains("check 3") && why.contains("more than 1 instance of 1g.10gb+me"),
             qPrintable(why));
    // 3g.40gb twice is valid; a third cannot even be placed (check 2 fires before check 3).
    QVERIFY(validateMigLayout(*m.mig, layout(m, "3g.40gb@0,3g.40gb@4")).ok());
  }

  void twoMediaExtensionsOfDifferentProfiles() {
    // A30: 1g.6gb+me and 2g.12gb+me each carry the GPU's single OFA (reference: engine check says
    // no).
    const MigVerdict v = check("A30", "1g.6gb+me@0,2g.12gb+me@2");
    QCOMPARE(v.check, MigCheck::EnginesExceeded);
    QCOMPARE(v.engine == MigEngine::OFA || v.engine == MigEngine::JPEG, true);
    const QString why = explain("A30", "1g.6gb+me@0,2g.12gb+me@2");
    QVERIFY2(why.contains("check 4") && why.contains("+me"), qPrintable(why));
  }

  void a30Rules() {
    QVERIFY(check("A30", "2g.12gb@0,1g.6gb@2,1g.6gb@3").ok());
    QVERIFY(check("A30", "4g.24gb@0").ok());
    QVERIFY(check("A30", "1g.6gb@0,1g.6gb@1,1g.6gb@2,1g.6gb@3").ok());
    QCOMPARE(check("A30", "2g.12gb@1").check, MigCheck::StartNotAllowed);
    QCOMPARE(check("A30", "4g.24gb@0,1g.6gb@3").check, MigCheck::MemoryOverlap);
    QCOMPARE(check("A30", "2g.12gb@0,2g.12gb+me@2").check, MigCheck::Ok);
    // A30 profile IDs differ from the 8-slice GPUs: 14 is 1g.6gb here, 2g on H100.
    const GpuModel& a30 = model("A30");
    QCOMPARE(a30.mig->profiles[static_cast<size_t>(a30.mig->profileIndexById(14))].name,
             std::string("1g.6gb"));
    const GpuModel& h100 = model("H100");
    QCOMPARE(h100.mig->profiles[static_cast<size_t>(h100.mig->profileIndexById(14))].name,
             std::string("2g.20gb"));
  }

  void computeInstances() {
    QVERIFY(check("A100-40GB", "3g.20gb@0(1c+1c+1c)").ok());
    QVERIFY(check("A100-40GB", "3g.20gb@0(2c+1c)").ok());
    QVERIFY(check("A100-40GB", "7g.40gb@0(4c+3c)").ok());
    QCOMPARE(check("A100-40GB", "3g.20gb@0(2c+2c)").check,
             MigCheck::ComputeInstanceInvalid);  // 4 > 3 slices
    QCOMPARE(check("A100-40GB", "4g.20gb@0(3c)").check,
             MigCheck::ComputeInstanceInvalid);  // no 3c in a 4g
    QCOMPARE(check("A100-40GB", "7g.40gb@0(3c+3c+1c)").ok(), true);
    QCOMPARE(check("A100-40GB", "7g.40gb@0(2c+2c+2c+1c)").ok(), true);
    QCOMPARE(check("A100-40GB", "7g.40gb@0(3c+3c+3c)").check, MigCheck::ComputeInstanceInvalid);
  }

  void notPlacedIsReported() {
    const MigVerdict v = check("H100", "3g.40gb");
    QCOMPARE(v.check, MigCheck::NotPlaced);
    QVERIFY(explain("H100", "3g.40gb").contains("no start slice"));
  }

  void layoutSyntaxRoundTrip() {
    const GpuModel& m = model("H100");
    const char* text = "3g.40gb@4,2g.20gb@0(1c+1c),1g.10gb@2*,1g.10gb@3";
    const MigLayout l = layout(m, text);
    QCOMPARE(l.size(), 4);
    QVERIFY(l[2].busy);
    QCOMPARE(int(l[1].ciCount), 2);
    QCOMPARE(QString::fromStdString(formatMigLayout(m, l, true)), QString(text));
    // A single CI spanning its GI is the default CI, written without parentheses.
    QCOMPARE(QString::fromStdString(formatMigLayout(m, layout(m, "1g.10gb@0(1c),3g.40gb@4(3c)"))),
             QString("1g.10gb@0,3g.40gb@4"));
    const MigLayout repeated = layout(m, "3x1g.10gb,2g.20gb");
    QCOMPARE(repeated.size(), 4);
    QVERIFY(!repeated[0].placed());
  }

  void layoutSyntaxErrors_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown profile") << "3g.41gb@0"
                                     << "unknown profile '3g.41gb'";
    QTest::newRow("start out of range") << "1g.10gb@8"
                                        << "start must be a memory slice 0..7";
    QTest::newRow("start not a number") << "1g.10gb@x"
                                        << "start must be a memory slice";
    QTest::newRow("empty item") << "1g.10gb@0,,1g.10gb@1"
                                << "empty item";
    QTest::newRow("bad ci") << "3g.40gb@0(2x)"
                            << "must look like '2c'";
    QTest::newRow("ci too big") << "3g.40gb@0(4c)"
                                << "1..3 compute slices";
    QTest::newRow("missing paren") << "3g.40gb@0(1c"
                                   << "missing ')'";
    QTest::newRow("repeat with start") << "2x1g.10gb@0"
                                       << "cannot have a fixed start";
    QTest::newRow("A30 profile on H100") << "1g.6gb@0"
                                         << "unknown profile";
    QTest::newRow("empty ci list") << "3g.40gb@0()"
                                   << "lists no compute instances";
  }
  void layoutSyntaxErrors() {
    QFETCH(QString, text);
    QFETCH(QString, message);
    auto l = parseMigLayout(model("H100"), text.toStdString());
    QVERIFY(!l.ok());
    QVERIFY2(QString::fromStdString(l.error().message).contains(message),
             l.error().message.c_str());
  }

  void nonMigModelRejected() {
    auto l = parseMigLayout(model("L40S"), "1g.10gb@0");
    QVERIFY(!l.ok());
    QVERIFY(QString::fromStdString(l.error().message).contains("not MIG capable"));
  }
};

QTEST_APPLESS_MAIN(TstMigValidate)
#include "tst_mig_validate.moc"
