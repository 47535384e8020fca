//===--- UnitTestCode.cpp - the bodies of unit tests and their helpers ----===//

#include "analysis/UnitTestCode.h"
#include "support/EnclosingContext.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Type.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"
#include <functional>

namespace clang::tidy::torch_sync {

const char DefaultUnitTestMacros[] =
    // GoogleTest (a project's own wrapper is found by the class's base too).
    "TEST;TEST_F;TEST_P;TYPED_TEST;TYPED_TEST_P;GTEST_TEST;"
    // Catch2 2.x and 3.x, and their CATCH_-prefixed forms.
    "TEST_CASE;TEST_CASE_METHOD;METHOD_AS_TEST_CASE;SCENARIO;SCENARIO_METHOD;"
    "TEMPLATE_TEST_CASE;TEMPLATE_TEST_CASE_SIG;TEMPLATE_TEST_CASE_METHOD;"
    "TEMPLATE_TEST_CASE_METHOD_SIG;TEMPLATE_PRODUCT_TEST_CASE;"
    "TEMPLATE_PRODUCT_TEST_CASE_SIG;TEMPLATE_PRODUCT_TEST_CASE_METHOD;"
    "TEMPLATE_PRODUCT_TEST_CASE_METHOD_SIG;TEMPLATE_LIST_TEST_CASE;"
    "TEMPLATE_LIST_TEST_CASE_METHOD;CATCH_TEST_CASE;CATCH_TEST_CASE_METHOD;"
    "CATCH_METHOD_AS_TEST_CASE;CATCH_SCENARIO;CATCH_SCENARIO_METHOD;"
    "CATCH_TEMPLATE_TEST_CASE;CATCH_TEMPLATE_TEST_CASE_METHOD;"
    "CATCH_TEMPLATE_PRODUCT_TEST_CASE;CATCH_TEMPLATE_LIST_TEST_CASE;"
    // doctest (TEST_CASE and SCENARIO are Catch2's names too).
    "TEST_CASE_FIXTURE;TEST_CASE_TEMPLATE;TEST_CASE_TEMPLATE_DEFINE;"
    "TEST_CASE_CLASS;SCENARIO_TEMPLATE;SCENARIO_TEMPLATE_DEFINE;"
    "DOCTEST_TEST_CASE;DOCTEST_TEST_CASE_FIXTURE;DOCTEST_TEST_CASE_TEMPLATE;"
    "DOCTEST_TEST_CASE_TEMPLATE_DEFINE;DOCTEST_TEST_CASE_CLASS;DOCTEST_"
    "SCENARIO;"
    "DOCTEST_SCENARIO_TEMPLATE;DOCTEST_SCENARIO_TEMPLATE_DEFINE;"
    // Boost.Test.
    "BOOST_AUTO_TEST_CASE;BOOST_FIXTURE_TEST_CASE;BOOST_AUTO_TEST_CASE_"
    "TEMPLATE;"
    "BOOST_FIXTURE_TEST_CASE_TEMPLATE;BOOST_DATA_TEST_CASE;BOOST_DATA_TEST_"
    "CASE_F;"
    "BOOST_TEST_CASE_TEMPLATE_FUNCTION";

namespace {

/// Bases followed before giving up (a deep or cyclic hierarchy in invalid
/// code).
constexpr unsigned MaxBaseDepth = 16;

/// Whether \p Class is GoogleTest's ::testing::Test.
bool isGTestTest(const CXXRecordDecl &Class) {
  const auto *Namespace = dyn_cast<NamespaceDecl>(Class.getDeclContext());
  return Class.getName() == "Test" && Namespace &&
         Namespace->getName() == "testing" &&
         Namespace->getDeclContext()->isTranslationUnit();
}

/// The class that base \p Type names: for a dependent base (a TYPED_TEST's
/// fixture template, 'TestFixture<T>'), the class of its template.
const CXXRecordDecl *baseClass(QualType Type) {
  if (const CXXRecordDecl *Class = Type->getAsCXXRecordDecl())
    return Class;
  if (const auto *Specialization = Type->getAs<TemplateSpecializationType>())
    if (const TemplateDecl *Template =
            Specialization->getTemplateName().getAsTemplateDecl())
      return dyn_cast_or_null<CXXRecordDecl>(Template->getTemplatedDecl());
  return nullptr;
}

/// Whether \p Class derives, directly or not, from ::testing::Test.
bool derivesFromGTestTest(const CXXRecordDecl &Class, unsigned Depth = 0) {
  const CXXRecordDecl *Definition = Class.getDefinition();
  if (!Definition || Depth > MaxBaseDepth)
    return false;
  for (const CXXBaseSpecifier &Base : Definition->bases()) {
    const CXXRecordDecl *BaseDecl = baseClass(Base.getType());
    if (BaseDecl &&
        (isGTestTest(*BaseDecl) || derivesFromGTestTest(*BaseDecl, Depth + 1)))
      return true;
  }
  return false;
}

/// The function that \p E is written in, out of lambdas; null at namespace
/// scope.
const FunctionDecl *writtenIn(const Expr &E, ASTContext &Context) {
  const FunctionDecl *Function = nullptr;
  forEachAncestor(DynTypedNode::create(E), Context,
                  [&](const DynTypedNode &Parent, const DynTypedNode &) {
                    Function = Parent.get<FunctionDecl>();
                    if (!Function)
                      return false;
                    const auto *Method = dyn_cast<CXXMethodDecl>(Function);
                    return !Method || !Method->getParent()->isLambda();
                  });
  return Function;
}

} // namespace

UnitTestCode::UnitTestCode(llvm::ArrayRef<llvm::StringRef> MacroNames) {
  for (llvm::StringRef Name : MacroNames)
    if (!Name.empty())
      Macros.insert(Name);
}

bool UnitTestCode::isTestFunction(const FunctionDecl &Function,
                                  ASTContext &Context) const {
  if (const auto *Method = dyn_cast<CXXMethodDecl>(&Function))
    if (derivesFromGTestTest(*Method->getParent()))
      return true;
  // The function's name was written by a test macro, maybe through a
  // project's own macro around it.
  const SourceManager &SM = Context.getSourceManager();
  SourceLocation Loc = Function.getLocation();
  while (Loc.isMacroID()) {
    if (Macros.contains(
            Lexer::getImmediateMacroName(Loc, SM, Context.getLangOpts())))
      return true;
    Loc = SM.getImmediateMacroCallerLoc(Loc);
  }
  return false;
}

bool UnitTestCode::mainFileDefinesTests(ASTContext &Context) {
  if (MainFileHasTests)
    return *MainFileHasTests;
  const SourceManager &SM = Context.getSourceManager();
  auto InMainFile = [&](const Decl &D) {
    return SM.isInMainFile(SM.getExpansionLoc(D.getLocation()));
  };
  // Test bodies are defined at namespace scope (GoogleTest's and Boost's out
  // of their classes); only the main file's namespaces are entered, not the
  // headers' ones.
  std::function<bool(const DeclContext &)> Defines =
      [&](const DeclContext &Scope) {
        for (const Decl *D : Scope.decls()) {
          if (!InMainFile(*D))
            continue;
          if (const auto *Template = dyn_cast<FunctionTemplateDecl>(D))
            D = Template->getTemplatedDecl();
          if (const auto *Function = dyn_cast<FunctionDecl>(D)) {
            if (Function->doesThisDeclarationHaveABody() &&
                isTestFunction(*Function, Context))
              return true;
          } else if (isa<NamespaceDecl, LinkageSpecDecl>(D) &&
                     Defines(*cast<DeclContext>(D))) {
            return true;
          }
        }
        return false;
      };
  MainFileHasTests = Defines(*Context.getTranslationUnitDecl());
  return *MainFileHasTests;
}

bool UnitTestCode::contains(const Expr &E, ASTContext &Context) {
  const FunctionDecl *Function = writtenIn(E, Context);
  if (!Function)
    return false;
  if (isTestFunction(*Function, Context))
    return true;
  // A helper of a test file: one with internal linkage defined in it (only
  // its tests can call it); in a file that is all tests (a test folder's, or
  // named so), any function that no header declares, and those of the
  // headers of a test folder.
  const SourceManager &SM = Context.getSourceManager();
  SourceLocation First =
      SM.getExpansionLoc(Function->getCanonicalDecl()->getLocation());
  if (!mainFileDefinesTests(Context))
    return false;
  if (SM.isInMainFile(First))
    return !Function->isExternallyVisible() ||
           isTestFile(SM.getLocForStartOfFile(SM.getMainFileID()), SM);
  return inTestFolder(First, SM);
}

bool UnitTestCode::inTestFolder(SourceLocation Loc, const SourceManager &SM) {
  OptionalFileEntryRef File = SM.getFileEntryRefForID(SM.getFileID(Loc));
  if (!File)
    return false;
  // The three nearest folders only: a checkout or build folder somewhere
  // under ~/tests/ does not make every file a test.
  llvm::SmallString<256> Path(File->getName());
  llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
  StringRef Folder = llvm::sys::path::parent_path(Path);
  for (unsigned Level = 0; Level < 3 && !Folder.empty(); ++Level) {
    if (llvm::is_contained(
            {"test", "tests", "testing", "unittest", "unittests"},
            llvm::sys::path::filename(Folder).lower()))
      return true;
    Folder = llvm::sys::path::parent_path(Folder);
  }
  return false;
}

bool UnitTestCode::isTestFile(SourceLocation Loc, const SourceManager &SM) {
  if (inTestFolder(Loc, SM))
    return true;
  OptionalFileEntryRef File = SM.getFileEntryRefForID(SM.getFileID(Loc));
  if (!File)
    return false;
  // test_x.cpp, x_test.cpp, x_tests.cc, xTest.cpp, xTests.cpp, test.cpp.
  StringRef Stem = llvm::sys::path::stem(File->getName());
  std::string Lower = Stem.lower();
  StringRef L(Lower);
  return L == "test" || L == "tests" || L.starts_with("test_") ||
         L.ends_with("_test") || L.ends_with("_tests") ||
         Stem.ends_with("Test") || Stem.ends_with("Tests");
}

} // namespace clang::tidy::torch_sync
