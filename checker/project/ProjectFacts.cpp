//===--- ProjectFacts.cpp - device facts about a whole project ------------===//

#include "project/ProjectFacts.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <mutex>

#ifndef TORCH_SYNC_VERSION
#error "TORCH_SYNC_VERSION must be defined by the build"
#endif

namespace clang::tidy::torch_sync {

namespace {

constexpr llvm::StringLiteral FactsFormatName = "torch-sync-project-facts";

/// A device as the facts spell it.
std::optional<DeviceKind> parseDevice(const llvm::json::Value &Value) {
  std::optional<llvm::StringRef> Name = Value.getAsString();
  if (!Name)
    return std::nullopt;
  if (*Name == "CPU")
    return DeviceKind::CPU;
  if (*Name == "CUDA")
    return DeviceKind::CUDA;
  if (*Name == "Unknown")
    return DeviceKind::Unknown;
  return std::nullopt;
}

/// A parameter index written as a JSON object key ("0", "2").
std::optional<unsigned> parseIndex(llvm::StringRef Text) {
  unsigned Index = 0;
  if (Text.empty() || Text.getAsInteger(10, Index))
    return std::nullopt;
  return Index;
}

int64_t modificationTimeNs(const llvm::sys::fs::file_status &Status) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             Status.getLastModificationTime().time_since_epoch())
      .count();
}

} // namespace

llvm::StringRef projectFactsToolVersion() {
  static const std::string Version = "torch-sync " TORCH_SYNC_VERSION
                                     " (LLVM " +
                                     std::to_string(LLVM_VERSION_MAJOR) + ")";
  return Version;
}

std::string inferenceFingerprint(bool ProjectDatasetsOnCPU,
                                 llvm::StringRef LibTorchHeaderRegex,
                                 llvm::StringRef ThirdPartyHeaderRegex) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << "ProjectDatasetsOnCPU=" << ProjectDatasetsOnCPU
     << "\nLibTorchHeaderRegex=" << LibTorchHeaderRegex
     << "\nThirdPartyHeaderRegex=" << ThirdPartyHeaderRegex << '\n';
  return md5Hex(OS.str());
}

std::string md5Hex(llvm::StringRef Data) {
  llvm::MD5 Hash;
  Hash.update(Data);
  llvm::MD5::MD5Result Result;
  Hash.final(Result);
  return std::string(Result.digest());
}

std::string writeUnitJson(llvm::StringRef Directory, llvm::StringRef MainFile,
                          const llvm::json::Value &Value) {
  auto Failed = [](llvm::StringRef Path, const std::error_code &Error) {
    return "'" + Path.str() + "': " + Error.message();
  };
  if (std::error_code Error = llvm::sys::fs::create_directories(Directory))
    return Failed(Directory, Error);
  llvm::SmallString<256> Path(Directory);
  llvm::sys::path::append(Path, md5Hex(MainFile) + ".json");
  llvm::SmallString<256> Temporary(Directory);
  llvm::sys::path::append(Temporary, ".unit-%%%%%%%%.tmp");
  int FD = -1;
  if (std::error_code Error =
          llvm::sys::fs::createUniqueFile(Temporary, FD, Temporary))
    return Failed(Temporary, Error);
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << llvm::formatv("{0:1}", Value) << '\n';
    if (OS.has_error()) {
      std::string Problem = Failed(Temporary, OS.error());
      OS.clear_error();
      llvm::sys::fs::remove(Temporary);
      return Problem;
    }
  }
  if (std::error_code Error = llvm::sys::fs::rename(Temporary, Path)) {
    llvm::sys::fs::remove(Temporary);
    return Failed(Path, Error);
  }
  return "";
}

std::string absoluteSourcePath(llvm::StringRef Path, const FileManager &Files) {
  llvm::SmallString<256> Absolute(Path);
  Files.makeAbsolutePath(Absolute);
  llvm::sys::path::remove_dots(Absolute, /*remove_dot_dot=*/true);
  return std::string(Absolute);
}

std::string projectFunctionKey(const FunctionDecl &Function,
                               const ASTContext &Context) {
  const FunctionDecl *F = &Function;
  if (const FunctionDecl *Pattern =
          F->getTemplateInstantiationPattern(/*ForDefinition=*/false))
    F = Pattern;
  // A member may be called from a library template that names it ('forward'
  // through ModuleHolder::operator(), Function<T>::apply), an operator through
  // ADL from one: calls the project's code does not show.
  if (isa<CXXMethodDecl>(F) || F->isOverloadedOperator() || F->isMain() ||
      F->getParentFunctionOrMethod())
    return "";
  // The parameters of a pack expand differently in each instantiation.
  if (llvm::any_of(F->parameters(), [](const ParmVarDecl *Param) {
        return Param->isParameterPack();
      }))
    return "";
  const auto *Proto = F->getType()->getAs<FunctionProtoType>();
  if (!Proto)
    return "";
  std::string Key;
  llvm::raw_string_ostream OS(Key);
  if (!F->isExternallyVisible()) {
    const SourceManager &SM = Context.getSourceManager();
    SourceLocation Loc =
        SM.getExpansionLoc(F->getCanonicalDecl()->getLocation());
    OptionalFileEntryRef File = SM.getFileEntryRefForID(SM.getFileID(Loc));
    if (!File)
      return "";
    OS << absoluteSourcePath(File->getName(), SM.getFileManager()) << "::";
  }
  OS << F->getQualifiedNameAsString() << '(';
  PrintingPolicy Policy(Context.getLangOpts());
  for (unsigned I = 0; I < Proto->getNumParams(); ++I)
    OS << (I ? ", " : "")
       << Proto->getParamType(I).getCanonicalType().getAsString(Policy);
  if (Proto->isVariadic())
    OS << (Proto->getNumParams() ? ", ..." : "...");
  OS << ')';
  return OS.str();
}

std::optional<DeviceKind> ProjectFacts::parameterDevice(llvm::StringRef Key,
                                                        unsigned Index) const {
  if (Recording)
    Queries.emplace(Key.str(), static_cast<int>(Index));
  auto Found = Functions.find(Key);
  if (Found == Functions.end())
    return std::nullopt;
  for (const auto &[Parameter, Device] : Found->second.Parameters)
    if (Parameter == Index)
      return Device;
  return std::nullopt;
}

const ProjectFacts::ReturnDevice *
ProjectFacts::returnDevice(llvm::StringRef Key) const {
  if (Recording)
    Queries.emplace(Key.str(), -1);
  auto Found = Functions.find(Key);
  if (Found == Functions.end() || !Found->second.Returns)
    return nullptr;
  return &*Found->second.Returns;
}

std::shared_ptr<ProjectFacts> ProjectFacts::recorder() {
  static std::shared_ptr<ProjectFacts> Recorder = [] {
    auto Facts = std::make_shared<ProjectFacts>();
    Facts->Recording = true;
    return Facts;
  }();
  return Recorder;
}

llvm::json::Array ProjectFacts::recordedQueries() const {
  llvm::json::Array Out;
  for (const auto &[Key, Index] : Queries) {
    if (Index < 0)
      Out.push_back(llvm::json::Object{{"function", Key}, {"returns", true}});
    else
      Out.push_back(
          llvm::json::Object{{"function", Key}, {"parameter", Index}});
  }
  return Out;
}

bool ProjectFacts::parseFunction(llvm::StringRef Key,
                                 const llvm::json::Value &Value,
                                 ProjectFacts::Function &Out,
                                 std::string &Problem) {
  auto Malformed = [&](llvm::StringRef What) {
    Problem = ("it is malformed: function '" + Key + "': " + What).str();
    return false;
  };
  const llvm::json::Object *Object = Value.getAsObject();
  if (!Object)
    return Malformed("expected an object");
  for (const auto &[Name, Field] : *Object) {
    if (Name == "parameters") {
      const llvm::json::Object *Parameters = Field.getAsObject();
      if (!Parameters)
        return Malformed("'parameters' is not an object");
      for (const auto &[IndexText, DeviceValue] : *Parameters) {
        std::optional<unsigned> Index = parseIndex(IndexText);
        std::optional<DeviceKind> Device = parseDevice(DeviceValue);
        if (!Index || !Device)
          return Malformed("a parameter is not an index with CPU, CUDA or "
                           "Unknown");
        Out.Parameters.emplace_back(*Index, *Device);
      }
    } else if (Name == "returns") {
      const llvm::json::Array *Terms = Field.getAsArray();
      if (!Terms || Terms->empty())
        return Malformed("'returns' is not a non-empty array");
      ProjectFacts::ReturnDevice Returns;
      for (const llvm::json::Value &Term : *Terms) {
        if (std::optional<DeviceKind> Device = parseDevice(Term)) {
          Returns.Device = joinAlternatives(Returns.Device, *Device);
          continue;
        }
        const llvm::json::Object *Parameter = Term.getAsObject();
        std::optional<int64_t> Index = Parameter && Parameter->size() == 1
                                           ? Parameter->getInteger("parameter")
                                           : std::nullopt;
        if (!Index || *Index < 0 || *Index > 0xffff)
          return Malformed("a return is neither a device nor a parameter");
        Returns.Parameters.push_back(static_cast<unsigned>(*Index));
      }
      Out.Returns = std::move(Returns);
    } else if (Name != "name") {
      return Malformed(("unknown field '" + Name.str() + "'").c_str());
    }
  }
  return true;
}

bool ProjectFacts::parseSources(const llvm::json::Object &Sources,
                                ProjectFacts &Out, std::string &Problem) {
  for (const auto &[Path, Stamp] : Sources) {
    const llvm::json::Object *Fields = Stamp.getAsObject();
    std::optional<int64_t> Size =
        Fields ? Fields->getInteger("size") : std::nullopt;
    std::optional<int64_t> Time =
        Fields ? Fields->getInteger("mtime_ns") : std::nullopt;
    std::optional<llvm::StringRef> Digest =
        Fields ? Fields->getString("md5") : std::nullopt;
    if (!Size || !Time || !Digest || *Size < 0) {
      Problem = ("it is malformed: source '" + Path.str() +
                 "' lacks size, mtime_ns or md5");
      return false;
    }
    Out.Sources.push_back(
        {Path.str(), static_cast<uint64_t>(*Size), *Time, Digest->str()});
  }
  return true;
}

bool ProjectFacts::sourcesUnchanged(std::string &Problem) const {
  for (const SourceStamp &Source : Sources) {
    llvm::sys::fs::file_status Status;
    if (llvm::sys::fs::status(Source.Path, Status) ||
        !llvm::sys::fs::is_regular_file(Status)) {
      Problem = "'" + Source.Path + "' no longer exists";
      return false;
    }
    if (Status.getSize() == Source.Size &&
        modificationTimeNs(Status) == Source.Time)
      continue;
    // Touched, or copied with new times: the content decides.
    auto Buffer = llvm::MemoryBuffer::getFile(Source.Path);
    if (!Buffer || md5Hex((*Buffer)->getBuffer()) != Source.Digest) {
      Problem = "'" + Source.Path + "' changed since they were collected";
      return false;
    }
  }
  return true;
}

std::shared_ptr<ProjectFacts> ProjectFacts::parse(llvm::StringRef Text,
                                                  llvm::StringRef Fingerprint,
                                                  std::string &Problem) {
  llvm::Expected<llvm::json::Value> Parsed = llvm::json::parse(Text);
  if (!Parsed) {
    Problem =
        "it is not valid JSON (" + llvm::toString(Parsed.takeError()) + ")";
    return nullptr;
  }
  const llvm::json::Object *Root = Parsed->getAsObject();
  if (!Root || Root->getString("format") != FactsFormatName) {
    Problem = "it is not a torch-sync project facts file";
    return nullptr;
  }
  std::optional<int64_t> Version = Root->getInteger("version");
  if (Version != ProjectFactsFormatVersion) {
    Problem = "its format version is " +
              (Version ? std::to_string(*Version) : std::string("missing")) +
              ", this torch-sync reads version " +
              std::to_string(ProjectFactsFormatVersion);
    return nullptr;
  }
  std::optional<llvm::StringRef> Tool = Root->getString("tool");
  if (Tool != projectFactsToolVersion()) {
    Problem = ("they were written by " + (Tool ? *Tool : "an unnamed tool") +
               ", this is " + projectFactsToolVersion())
                  .str();
    return nullptr;
  }
  if (Root->getString("configuration") != Fingerprint) {
    Problem = "they were collected with other options of the device inference "
              "(ProjectDatasetsOnCPU, LibTorchHeaderRegex, "
              "ThirdPartyHeaderRegex)";
    return nullptr;
  }
  const llvm::json::Array *Units = Root->getArray("translation_units");
  const llvm::json::Object *Sources = Root->getObject("sources");
  const llvm::json::Object *Functions = Root->getObject("functions");
  if (!Units || !Sources || !Functions) {
    Problem = "it is malformed: it lacks translation_units, sources or "
              "functions";
    return nullptr;
  }
  auto Facts = std::make_shared<ProjectFacts>();
  for (const llvm::json::Value &Unit : *Units) {
    std::optional<llvm::StringRef> Path = Unit.getAsString();
    if (!Path) {
      Problem = "it is malformed: a translation unit is not a path";
      return nullptr;
    }
    Facts->TranslationUnits.insert(*Path);
  }
  for (const auto &[Key, Value] : *Functions)
    if (!parseFunction(Key, Value, Facts->Functions[Key], Problem))
      return nullptr;
  if (!parseSources(*Sources, *Facts, Problem))
    return nullptr;
  return Facts;
}

std::shared_ptr<const ProjectFacts>
ProjectFacts::load(llvm::StringRef Path, llvm::StringRef Fingerprint,
                   std::string &Problem) {
  // The parsed facts of each file, by path and fingerprint, while the file
  // keeps its size and time. The sources are checked at every load: they may
  // change while the facts file does not.
  struct Parsed {
    uint64_t Size = 0;
    int64_t Time = 0;
    std::shared_ptr<const ProjectFacts> Facts;
    std::string Problem;
  };
  static std::mutex Mutex;
  static llvm::StringMap<Parsed> Cache;

  llvm::sys::fs::file_status Status;
  if (std::error_code Error = llvm::sys::fs::status(Path, Status)) {
    Problem = "cannot read it (" + Error.message() + ")";
    return nullptr;
  }
  std::lock_guard<std::mutex> Lock(Mutex);
  auto [It, Inserted] = Cache.try_emplace((Path + "\n" + Fingerprint).str());
  Parsed &Entry = It->second;
  if (Inserted || Entry.Size != Status.getSize() ||
      Entry.Time != modificationTimeNs(Status)) {
    Entry = Parsed{Status.getSize(), modificationTimeNs(Status), nullptr, ""};
    auto Buffer = llvm::MemoryBuffer::getFile(Path);
    if (!Buffer)
      Entry.Problem = "cannot read it (" + Buffer.getError().message() + ")";
    else
      Entry.Facts = ProjectFacts::parse((*Buffer)->getBuffer(), Fingerprint,
                                        Entry.Problem);
  }
  if (!Entry.Facts) {
    Problem = Entry.Problem;
    return nullptr;
  }
  if (!Entry.Facts->sourcesUnchanged(Problem))
    return nullptr;
  return Entry.Facts;
}

} // namespace clang::tidy::torch_sync
